import path from "node:path";
import type { AgentProduct } from "../product.js";
import { sessionRef } from "../kit/ids.js";

/** FNV-1a of the prompt, hex: a stable, short session-key suffix (not a security measure). */
function promptHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

export const openclaw: AgentProduct = {
  id: "openclaw",
  label: "OpenClaw Gateway",
  executable: "openclaw",
  terminal: {
    resumeArgs: (s) => ["tui", "--session", sessionRef(s)],
    // The hashed key keeps a handoff out of the agent's shared main session; never --deliver.
    newArgs: (p) => ["tui", "--session", `baton-handoff-${promptHash(p)}`, "--message", p],
  },
  store: {
    // The location is the state directory, as `--openclaw-dir` takes it.
    location: (env, home) => env.OPENCLAW_STATE_DIR || path.join(home, ".openclaw"),
    load: async () => (await import("./store.js")).openclawReader,
  },
};

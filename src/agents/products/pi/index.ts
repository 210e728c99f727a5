import path from "node:path";
import type { AgentProduct } from "../product.js";
import { sessionRef } from "../kit/ids.js";

export const pi: AgentProduct = {
  id: "pi",
  label: "Pi",
  executable: "pi",
  terminal: { resumeArgs: (s) => ["--session", sessionRef(s)], newArgs: (p) => ["--", p] },
  store: {
    // PI_SESSION_DIR (and its legacy name) moves only the sessions, as in pi-coding-agent's config.
    location: (env, home) => env.PI_SESSION_DIR || env.PI_CODING_AGENT_SESSION_DIR || path.join(env.PI_CODING_AGENT_DIR || path.join(home, ".pi", "agent"), "sessions"),
    load: async () => (await import("./store.js")).piReader,
  },
};

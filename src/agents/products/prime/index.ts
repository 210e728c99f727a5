import path from "node:path";
import type { AgentProduct } from "../product.js";
import { sessionRef } from "../kit/ids.js";

/** Prime Agent is built on Pi: its sessions are Pi's format, read by Pi's reader. */
export const prime: AgentProduct = {
  id: "prime",
  label: "Prime Agent",
  aliases: ["prime-agent"],
  executable: "prime-agent",
  terminal: { resumeArgs: (s) => ["--resume", sessionRef(s)], newArgs: (p) => ["--", p] },
  store: {
    location: (env, home) => env.PRIME_AGENT_CODING_AGENT_DIR || path.join(home, ".prime", "agent"),
    load: async () => (await import("../pi/store.js")).primeReader,
  },
};

import path from "node:path";
import type { AgentProduct } from "../product.js";

export const cline: AgentProduct = {
  id: "cline",
  label: "Cline",
  executable: "cline",
  terminal: {
    // Cline auto-approves by default; Baton always asks it not to.
    resumeArgs: (s) => ["--tui", "--auto-approve", "false", "--id", s.id],
    newArgs: (p) => ["--tui", "--auto-approve", "false", p],
  },
  store: {
    location: (env, home) => path.join(env.CLINE_DIR || path.join(home, ".cline"), "data"),
    load: async () => (await import("./store.js")).clineReader,
    dirFlag: { name: "cline-dir", description: "Cline data directory" },
  },
};

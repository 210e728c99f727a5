import path from "node:path";
import type { AgentProduct } from "../product.js";

export const grok: AgentProduct = {
  id: "grok",
  label: "Grok Build",
  executable: "grok",
  terminal: {
    // The configured mode can be always-approve; `default` asks before running tools.
    resumeArgs: (s) => ["--permission-mode", "default", "--resume", s.id],
    newArgs: (p) => ["--permission-mode", "default", p],
    resumeNeedsRecordedDir: true,
  },
  store: {
    // Like the seed's sync, GROK_HOME is not read; pass --store-dir grok=$GROK_HOME/sessions.
    location: (_env, home) => path.join(home, ".grok", "sessions"),
    load: async () => (await import("./store.js")).grokReader,
  },
};

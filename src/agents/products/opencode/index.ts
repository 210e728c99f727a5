import type { AgentProduct } from "../product.js";
import { location, opencodeDbPath } from "./locations.js";

export const opencode: AgentProduct = {
  id: "opencode",
  label: "OpenCode",
  executable: "opencode",
  installHint: "npm install -g opencode-ai, then run `opencode auth login`",
  sessionId: { pattern: /^ses_[A-Za-z0-9]{1,128}$/, shape: "ses_ followed by letters and digits" },
  chat: {
    acpCommand: () => ({ command: "opencode", args: ["acp"] }),
    cliCommand: "opencode",
    modelArgs: (model) => ({ args: ["--model", model] }),
    autoOrder: 4,
  },
  terminal: { resumeArgs: (s) => ["--session", s.id], newArgs: (p) => ["--prompt", p] },
  store: {
    location,
    paths: (ctx) => [ctx.dir, opencodeDbPath(ctx)],
    load: async () => (await import("./store.js")).opencodeReader,
    dirFlag: { name: "opencode-dir", description: "OpenCode data directory" },
  },
};

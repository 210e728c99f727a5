import path from "node:path";
import type { ReaderContext } from "../../stores/types.js";
import type { AgentProduct } from "../product.js";
import { envPathUnlessGiven } from "../kit/locations.js";

const location = (env: NodeJS.ProcessEnv, home: string) => path.join(env.XDG_DATA_HOME || path.join(home, ".local", "share"), "opencode");

/** OpenCode's SQLite file: $OPENCODE_DB, unless the location was given. */
export function opencodeDbPath(ctx: ReaderContext): string {
  return envPathUnlessGiven(ctx, location, "OPENCODE_DB", path.join(ctx.dir, "opencode.db"));
}

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

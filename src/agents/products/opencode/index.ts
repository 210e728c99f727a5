import type { AgentProduct } from "../product.js";
import { opencodeLaunch } from "./launch.js";
import { location, opencodeDbPath } from "./locations.js";

/**
 * OpenCode allows every tool unless its config says otherwise. OPENCODE_PERMISSION (JSON) is
 * merged over every config file, so wherever Baton starts it, commands, file edits and web fetches
 * ask first (a rule the user set to "deny" asks too: a person still decides each one).
 */
const ASK_FIRST = JSON.stringify({ bash: "ask", edit: "ask", webfetch: "ask" });

export const opencode: AgentProduct = {
  id: "opencode",
  label: "OpenCode",
  executable: "opencode",
  installHint: "npm install -g opencode-ai, then run `opencode auth login`",
  unsafeEnv: ["OPENCODE_PERMISSION"],
  askEnv: { OPENCODE_PERMISSION: ASK_FIRST },
  approvalBypass: ["--auto"],
  sessionId: { pattern: /^ses_[A-Za-z0-9]{1,128}$/, shape: "ses_ followed by letters and digits" },
  chat: {
    acpCommand: () => ({ command: "opencode", args: ["acp"] }),
    cliCommand: "opencode",
    // `opencode acp` takes no --model (it refuses unknown flags): the model goes in as config.
    modelArgs: (model) => ({ env: { OPENCODE_CONFIG_CONTENT: JSON.stringify({ model }) } }),
    autoOrder: 4,
  },
  terminal: { resumeArgs: (s) => ["--session", s.id], newArgs: (p) => ["--prompt", p] },
  store: {
    location,
    paths: (ctx) => [ctx.dir, opencodeDbPath(ctx)],
    load: async () => (await import("./store.js")).opencodeReader,
    dirFlag: { name: "opencode-dir", description: "OpenCode data directory" },
  },
  launch: opencodeLaunch,
};

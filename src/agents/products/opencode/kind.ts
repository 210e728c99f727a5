import type { AgentKind } from "../kind.js";

export const opencode: AgentKind = {
  id: "opencode",
  displayName: "OpenCode",
  runtime: "opencode",
  acpCommand: () => ({ command: "opencode", args: ["acp"] }),
  cliCommand: "opencode",
  installHint: "npm install -g opencode-ai, then run `opencode auth login`",
  modelArgs: (model) => ({ args: ["--model", model] }),
};

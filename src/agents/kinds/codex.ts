import type { AgentKind } from "./kind.js";

export const codex: AgentKind = {
  id: "codex",
  displayName: "Codex CLI",
  runtime: "codex",
  acpCommand: () => ({ command: "codex-acp", args: [] }),
  cliCommand: "codex",
  installHint: "npm install -g @openai/codex @agentclientprotocol/codex-acp, then run `codex login`",
  modelArgs: (model) => ({ args: ["-c", `model="${model}"`] }),
};

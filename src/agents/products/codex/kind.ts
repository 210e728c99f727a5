import type { AgentKind } from "../kind.js";

export const codex: AgentKind = {
  id: "codex",
  displayName: "Codex CLI",
  runtime: "codex",
  acpCommand: () => ({ command: "codex-acp", args: [] }),
  cliCommand: "codex",
  // codex-acp 2.x starts sessions in its "agent" mode, where a model reviews approvals instead of
  // the user; workspace-write keeps Codex's sandbox and asks the user (in chat) for anything beyond it.
  askEnv: { INITIAL_AGENT_MODE: "workspace-write" },
  installHint: "npm install -g @openai/codex @agentclientprotocol/codex-acp, then run `codex login`",
  modelArgs: (model) => ({ args: ["-c", `model="${model}"`] }),
};

import type { AgentKind } from "../kind.js";

export const claude: AgentKind = {
  id: "claude",
  displayName: "Claude Code",
  runtime: "claude",
  acpCommand: () => ({ command: "claude-agent-acp", args: [] }),
  cliCommand: "claude",
  installHint: "npm install -g @anthropic-ai/claude-code @agentclientprotocol/claude-agent-acp, then run `claude` once to log in",
  modelArgs: (model) => ({ env: { ANTHROPIC_MODEL: model } }),
};

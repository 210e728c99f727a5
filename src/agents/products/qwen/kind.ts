import type { AgentKind } from "../kind.js";

export const qwen: AgentKind = {
  id: "qwen",
  displayName: "Qwen Code",
  runtime: "qwen",
  acpCommand: () => ({ command: "qwen", args: ["--acp", "--approval-mode", "default"] }),
  cliCommand: "qwen",
  installHint: "npm install -g @qwen-code/qwen-code, then run `qwen` once to log in",
  modelArgs: (model) => ({ args: ["--model", model] }),
};

import type { AgentKind } from "./kind.js";

export const gemini: AgentKind = {
  id: "gemini",
  displayName: "Gemini CLI",
  runtime: "gemini",
  // --approval-mode default: a user or project setting that approves everything does not carry over.
  acpCommand: () => ({ command: "gemini", args: ["--acp", "--approval-mode", "default"] }),
  cliCommand: "gemini",
  installHint: "npm install -g @google/gemini-cli, then run `gemini` once to log in",
  modelArgs: (model) => ({ args: ["--model", model] }),
};

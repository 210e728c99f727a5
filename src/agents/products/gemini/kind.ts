import type { AgentKind } from "../kind.js";

export const gemini: AgentKind = {
  id: "gemini",
  displayName: "Gemini CLI",
  runtime: "gemini",
  // --approval-mode default: a user or project setting that approves everything does not carry over.
  acpCommand: () => ({ command: "gemini", args: ["--acp", "--approval-mode", "default"] }),
  cliCommand: "gemini",
  installHint: "npm install -g @google/gemini-cli, then run `gemini` once to log in",
  // Seen with 0.61: a session loaded over ACP by one process, then by the next, failed the second
  // load ("Invalid session identifier") and its file was left with no history.
  resumeMayLoseHistory: "Gemini CLI 0.61 can fail a second session/load of a session and leave it without history",
  modelArgs: (model) => ({ args: ["--model", model] }),
};

import path from "node:path";
import type { AgentProduct } from "../product.js";
import { UUID_ID } from "../kit/ids.js";
import { geminiLaunch } from "./launch.js";

export const gemini: AgentProduct = {
  id: "gemini",
  label: "Gemini CLI",
  executable: "gemini",
  installHint: "npm install -g @google/gemini-cli, then run `gemini` once to log in",
  approvalBypass: ["--yolo", "-y", ["--approval-mode", "yolo"]],
  sessionId: UUID_ID,
  chat: {
    // --approval-mode default: a user or project setting that approves everything does not carry over.
    acpCommand: () => ({ command: "gemini", args: ["--acp", "--approval-mode", "default"] }),
    cliCommand: "gemini",
    // Seen with 0.61: a session loaded over ACP by one process, then by the next, failed the second
    // load ("Invalid session identifier") and its file was left with no history.
    resumeMayLoseHistory: "Gemini CLI 0.61 can fail a second session/load of a session and leave it without history",
    modelArgs: (model) => ({ args: ["--model", model] }),
    autoOrder: 3,
  },
  terminal: {
    // `--resume <id>` looks the session up among the recorded directory's sessions only.
    resumeArgs: (s) => ["--approval-mode", "default", "--resume", s.id],
    resumeNeedsRecordedDir: true,
    newArgs: (p) => ["--approval-mode", "default", "--prompt-interactive", p],
    readArgs: (dirs) => dirs.flatMap((d) => ["--include-directories", d]),
  },
  store: {
    location: (env, home) => path.join(env.GEMINI_CLI_HOME || home, ".gemini", "tmp"),
    load: async () => (await import("./store.js")).geminiReader,
  },
  launch: geminiLaunch,
  setup: async (ctx) => (await import("./setup.js")).geminiSetup(ctx),
};

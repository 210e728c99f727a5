import path from "node:path";
import type { AgentProduct } from "../product.js";
import { UUID_ID } from "../kit/ids.js";
import { qwenLaunch } from "./launch.js";

export const qwen: AgentProduct = {
  id: "qwen",
  label: "Qwen Code",
  executable: "qwen",
  installHint: "npm install -g @qwen-code/qwen-code, then run `qwen` once to log in",
  // --approval-mode auto: a model, not the user, approves what it judges safe.
  approvalBypass: ["--yolo", "-y", ["--approval-mode", "yolo"], ["--approval-mode", "auto"]],
  sessionId: UUID_ID,
  chat: {
    acpCommand: () => ({ command: "qwen", args: ["--acp", "--approval-mode", "default"] }),
    cliCommand: "qwen",
    modelArgs: (model) => ({ args: ["--model", model] }),
    autoOrder: 5,
  },
  terminal: {
    // `--resume <id>` looks the session up among the recorded directory's sessions only.
    resumeArgs: (s) => ["--approval-mode", "default", "--resume", s.id],
    resumeNeedsRecordedDir: true,
    newArgs: (p) => ["--approval-mode", "default", "--prompt-interactive", p],
    readArgs: (dirs) => dirs.flatMap((d) => ["--include-directories", d]),
  },
  store: {
    location: (env, home) => path.join(env.QWEN_HOME || path.join(home, ".qwen"), "projects"),
    load: async () => (await import("./store.js")).qwenReader,
  },
  launch: qwenLaunch,
};

import path from "node:path";
import type { AgentProduct } from "../product.js";
import { UUID_ID } from "../kit/ids.js";

export const qwen: AgentProduct = {
  id: "qwen",
  label: "Qwen Code",
  executable: "qwen",
  installHint: "npm install -g @qwen-code/qwen-code, then run `qwen` once to log in",
  sessionId: UUID_ID,
  chat: {
    acpCommand: () => ({ command: "qwen", args: ["--acp", "--approval-mode", "default"] }),
    cliCommand: "qwen",
    modelArgs: (model) => ({ args: ["--model", model] }),
    autoOrder: 5,
  },
  terminal: {
    newArgs: (p) => ["--approval-mode", "default", "--prompt-interactive", p],
    readArgs: (dirs) => dirs.flatMap((d) => ["--include-directories", d]),
  },
  store: {
    location: (env, home) => path.join(env.QWEN_HOME || path.join(home, ".qwen"), "projects"),
    load: async () => (await import("./store.js")).qwenReader,
  },
};

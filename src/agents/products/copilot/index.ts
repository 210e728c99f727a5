import path from "node:path";
import type { AgentProduct } from "../product.js";
import { UUID_ID } from "../kit/ids.js";

export const copilot: AgentProduct = {
  id: "copilot",
  label: "GitHub Copilot CLI",
  executable: "copilot",
  // Either variable makes Copilot run tools without asking.
  unsafeEnv: ["COPILOT_ALLOW_ALL", "COPILOT_PLAN_THEN_AUTOPILOT"],
  sessionId: UUID_ID,
  terminal: { resumeArgs: (s) => [`--resume=${s.id}`], newArgs: (p) => ["-i", p] },
  store: {
    // The location is the directory holding session-state, as `--copilot-dir` takes it.
    location: (env, home) => env.COPILOT_HOME || path.join(home, ".copilot"),
    load: async () => (await import("./store.js")).copilotReader,
  },
};

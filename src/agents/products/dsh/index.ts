import type { AgentProduct } from "../product.js";
import { location, dshSessionRoot } from "./locations.js";

export const dsh: AgentProduct = {
  id: "dsh",
  label: "DeepSeek Harness",
  executable: "dsh",
  terminal: {
    notStartable:
      "DeepSeek Harness has no interactive terminal session to start (`dsh --profile headless` answers one task and exits; `dsh web` is a browser UI). Continue its sessions in another runtime with --agent",
  },
  store: { location, paths: (ctx) => [dshSessionRoot(ctx)], load: async () => (await import("./store.js")).dshReader },
};

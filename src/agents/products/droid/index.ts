import path from "node:path";
import type { AgentProduct } from "../product.js";

export const droid: AgentProduct = {
  id: "droid",
  label: "Factory Droid",
  aliases: ["factory"],
  executable: "droid",
  terminal: { resumeArgs: (s) => ["--resume", s.id], newArgs: (p) => [p] },
  store: { location: (_env, home) => path.join(home, ".factory", "sessions"), load: async () => (await import("./store.js")).droidReader },
};

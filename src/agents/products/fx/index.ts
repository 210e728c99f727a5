import path from "node:path";
import type { AgentProduct } from "../product.js";

export const fx: AgentProduct = {
  id: "fx",
  label: "fx",
  executable: "fx",
  terminal: {
    resumeArgs: (s) => ["--resume", s.id],
    noNewSession: "fx has no interactive session that starts from a prompt (`fx ask` runs one request and exits), so it cannot continue from a brief",
    resumeNeedsRecordedDir: true,
    nativeOnly: "`fx ask` runs one request and exits",
  },
  store: { location: (_env, home) => path.join(home, ".fx", "sessions"), load: async () => (await import("./store.js")).fxReader },
};

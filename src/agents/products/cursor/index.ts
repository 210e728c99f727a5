import path from "node:path";
import type { AgentProduct } from "../product.js";
import { cursorGlobalDb } from "./locations.js";

export const cursor: AgentProduct = {
  id: "cursor",
  label: "Cursor",
  aliases: ["cursor-agent"],
  executable: "cursor-agent",
  terminal: { resumeArgs: (s) => ["--resume", s.id], newArgs: (p) => [p], resumeNeedsRecordedDir: true },
  store: {
    location: (_env, home) => path.join(home, ".cursor", "projects"),
    // Cursor's Composer conversations live in the IDE's global database, away from the transcripts.
    paths: (ctx) => [ctx.dir, cursorGlobalDb(ctx.env, ctx.home)],
    load: async () => (await import("./store.js")).cursorReader,
  },
};

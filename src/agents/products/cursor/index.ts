import path from "node:path";
import type { AgentProduct } from "../product.js";

export function cursorChatsRoot(env: NodeJS.ProcessEnv, home: string): string {
  if (env.CURSOR_CONFIG_DIR) return path.join(env.CURSOR_CONFIG_DIR, "chats");
  if (env.XDG_CONFIG_HOME) return path.join(env.XDG_CONFIG_HOME, "cursor", "chats");
  return path.join(home, ".cursor", "chats");
}

export function cursorGlobalDb(env: NodeJS.ProcessEnv, home: string): string {
  if (process.platform === "darwin") return path.join(home, "Library", "Application Support", "Cursor", "User", "globalStorage", "state.vscdb");
  if (process.platform === "win32") return path.join(env.APPDATA || path.join(home, "AppData", "Roaming"), "Cursor", "User", "globalStorage", "state.vscdb");
  return path.join(env.XDG_CONFIG_HOME || path.join(home, ".config"), "Cursor", "User", "globalStorage", "state.vscdb");
}

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

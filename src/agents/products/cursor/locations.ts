// Where Cursor keeps what its reader reads: the agent's chats and the IDE's global database. Shared
// by the descriptor (which paths exist) and the reader, apart from both so neither loads the other.
import path from "node:path";

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

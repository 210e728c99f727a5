// `~` in paths from config and chat: the home directory of this machine's user.
import { homedir } from "node:os";
import { resolve } from "node:path";

export function expandHome(path: string, home: string = homedir()): string {
  return path === "~" ? home : path.startsWith("~/") ? resolve(home, path.slice(2)) : path;
}

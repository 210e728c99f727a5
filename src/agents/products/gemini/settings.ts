// How `baton launch gemini` can hand Gemini CLI Baton's MCP server. Gemini has no per-run MCP flag;
// its system settings file (path from GEMINI_CLI_SYSTEM_SETTINGS_PATH) works, but Gemini CLI 0.61
// skips that file unless it and every directory above it belong to root and nobody else can write
// them — never true of a data dir under a user's home. A server registered by `baton setup gemini`
// in the user settings needs nothing per run: the launch's BATON_* variables reach it through
// Gemini's environment (Gemini passes on variables whose names do not look like secrets).
import { lstatSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, parse } from "node:path";

const GROUP_OR_OTHER_WRITE = 0o022;

/** Why Gemini CLI would skip a system settings file at `file`, or undefined when it would read it. */
export function whyGeminiSkipsSettings(file: string): string | undefined {
  const root = parse(file).root;
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    let st;
    try {
      st = lstatSync(dir);
    } catch {
      st = undefined; // not made yet: it will be ours, checked by its parent
    }
    if (st && st.uid !== 0) return `${dir} is not owned by root`;
    if (st && st.mode & GROUP_OR_OTHER_WRITE) return `${dir} is writable by others`;
    if (dir === root) return undefined;
  }
}

/** The user settings file Gemini CLI reads (`GEMINI_CLI_HOME` moves it). */
function geminiUserSettingsPath(env: NodeJS.ProcessEnv): string {
  return join(env.GEMINI_CLI_HOME || env.HOME || homedir(), ".gemini", "settings.json");
}

/** True when the user settings already register an MCP server named `baton` (`baton setup gemini`). */
export function geminiHasBatonServer(env: NodeJS.ProcessEnv): boolean {
  try {
    const settings = JSON.parse(readFileSync(geminiUserSettingsPath(env), "utf8")) as { mcpServers?: Record<string, unknown> };
    return !!settings.mcpServers && typeof settings.mcpServers === "object" && "baton" in settings.mcpServers;
  } catch {
    return false;
  }
}

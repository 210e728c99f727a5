// Where each runtime keeps its sessions, apart from the code that reads them: listing looks here
// first and loads only the readers of stores that exist (loading all 17, sql.js behind three of
// them, took longer than listing the newest 25 of 2,000 sessions).

import { readFileSync } from "node:fs";
import path from "node:path";
import type { ReaderContext, StoreInfo } from "./types.js";

export function batonDataDir(env: NodeJS.ProcessEnv, home: string): string {
  return env.BATON_DATA_DIR || path.join(home, ".baton");
}

/**
 * The Hermes home as hermes_constants.py resolves it: $HERMES_HOME, else the platform default
 * (`~/.hermes` + $HERMES_DATA_DIR_SUFFIX; Windows `%LOCALAPPDATA%/hermes`), switched to
 * `profiles/<name>` when that default names a sticky active profile in `active_profile`.
 */
export function hermesHome(env: NodeJS.ProcessEnv, home: string): string {
  if (env.HERMES_HOME?.trim()) return env.HERMES_HOME.trim();
  const suffix = env.HERMES_DATA_DIR_SUFFIX ?? "";
  const root = process.platform === "win32" ? path.join(env.LOCALAPPDATA || path.join(home, "AppData", "Local"), `hermes${suffix}`) : path.join(home, `.hermes${suffix}`);
  let active = "";
  try {
    active = readFileSync(path.join(root, "active_profile"), "utf8").trim();
  } catch {
    // No sticky profile: the default home.
  }
  return active && active !== "default" && !active.includes("/") && !active.startsWith(".") ? path.join(root, "profiles", active) : root;
}

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

export const CLAUDE_STORE: StoreInfo = {
  runtime: "claude",
  label: "Claude Code",
  defaultDir: (env, home) => path.join(env.CLAUDE_CONFIG_DIR || path.join(home, ".claude"), "projects"),
};

export const CLINE_STORE: StoreInfo = {
  runtime: "cline",
  label: "Cline",
  defaultDir: (env, home) => path.join(env.CLINE_DIR || path.join(home, ".cline"), "data"),
};

export const CODEX_STORE: StoreInfo = {
  runtime: "codex",
  label: "Codex CLI",
  defaultDir: (env, home) => path.join(env.CODEX_HOME || path.join(home, ".codex"), "sessions"),
};

export const COPILOT_STORE: StoreInfo = {
  runtime: "copilot",
  label: "GitHub Copilot CLI",
  // The location is the directory holding session-state, as `--copilot-dir` takes it.
  defaultDir: (env, home) => env.COPILOT_HOME || path.join(home, ".copilot"),
};

export const CURSOR_STORE: StoreInfo = {
  runtime: "cursor",
  label: "Cursor",
  defaultDir: (_env, home) => path.join(home, ".cursor", "projects"),
};

export const DEMO_STORE: StoreInfo = {
  runtime: "demo",
  label: "Baton demo agent",
  defaultDir: (env, home) => path.join(batonDataDir(env, home), "demo-agent", "sessions"),
};

export const DROID_STORE: StoreInfo = {
  runtime: "droid",
  label: "Factory Droid",
  defaultDir: (_env, home) => path.join(home, ".factory", "sessions"),
};

export const DSH_STORE: StoreInfo = {
  runtime: "dsh",
  label: "DeepSeek Harness",
  // The location is DSH_HOME, as `--dsh-home` takes it; DSH_SESSION_ROOT moves only the sessions.
  defaultDir: (env, home) => env.DSH_HOME || path.join(home, ".dsh"),
};

/** Where DeepSeek Harness sessions are: DSH_SESSION_ROOT, unless the location was given. */
export function dshSessionRoot(ctx: ReaderContext): string {
  const overridden = ctx.dir !== DSH_STORE.defaultDir(ctx.env, ctx.home);
  return !overridden && ctx.env.DSH_SESSION_ROOT ? ctx.env.DSH_SESSION_ROOT : path.join(ctx.dir, "sessions");
}

export const FX_STORE: StoreInfo = {
  runtime: "fx",
  label: "fx",
  defaultDir: (_env, home) => path.join(home, ".fx", "sessions"),
};

export const GEMINI_STORE: StoreInfo = {
  runtime: "gemini",
  label: "Gemini CLI",
  defaultDir: (env, home) => path.join(env.GEMINI_CLI_HOME || home, ".gemini", "tmp"),
};

export const GROK_STORE: StoreInfo = {
  runtime: "grok",
  label: "Grok Build",
  // Like the seed's sync, GROK_HOME is not read; pass --store-dir grok=$GROK_HOME/sessions.
  defaultDir: (_env, home) => path.join(home, ".grok", "sessions"),
};

export const HERMES_STORE: StoreInfo = {
  runtime: "hermes",
  label: "Hermes Agent",
  // The location is the state.db file itself, as `--db` takes it.
  defaultDir: (env, home) => path.join(hermesHome(env, home), "state.db"),
};

export const OPENCLAW_STORE: StoreInfo = {
  runtime: "openclaw",
  label: "OpenClaw Gateway",
  // The location is the state directory, as `--openclaw-dir` takes it.
  defaultDir: (env, home) => env.OPENCLAW_STATE_DIR || path.join(home, ".openclaw"),
};

export const OPENCODE_STORE: StoreInfo = {
  runtime: "opencode",
  label: "OpenCode",
  defaultDir: (env, home) => path.join(env.XDG_DATA_HOME || path.join(home, ".local", "share"), "opencode"),
};

/** OpenCode's SQLite file: $OPENCODE_DB, unless the location was given. */
export function opencodeDbPath(ctx: ReaderContext): string {
  const overridden = ctx.dir !== OPENCODE_STORE.defaultDir(ctx.env, ctx.home);
  return !overridden && ctx.env.OPENCODE_DB ? ctx.env.OPENCODE_DB : path.join(ctx.dir, "opencode.db");
}

export const PI_STORE: StoreInfo = {
  runtime: "pi",
  label: "Pi",
  // PI_SESSION_DIR (and its legacy name) moves only the sessions, as in pi-coding-agent's config.
  defaultDir: (env, home) => env.PI_SESSION_DIR || env.PI_CODING_AGENT_SESSION_DIR || path.join(env.PI_CODING_AGENT_DIR || path.join(home, ".pi", "agent"), "sessions"),
};

export const PRIME_STORE: StoreInfo = {
  runtime: "prime",
  label: "Prime Agent",
  defaultDir: (env, home) => env.PRIME_AGENT_CODING_AGENT_DIR || path.join(home, ".prime", "agent"),
};

export const QWEN_STORE: StoreInfo = {
  runtime: "qwen",
  label: "Qwen Code",
  defaultDir: (env, home) => path.join(env.QWEN_HOME || path.join(home, ".qwen"), "projects"),
};

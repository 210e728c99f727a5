import { readFileSync } from "node:fs";
import path from "node:path";
import type { AgentProduct } from "../product.js";
import { sessionRef } from "../kit/ids.js";

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

export const hermes: AgentProduct = {
  id: "hermes",
  label: "Hermes Agent",
  executable: "hermes",
  unsafeEnv: ["HERMES_YOLO_MODE"],
  terminal: {
    resumeArgs: (s) => ["--resume", sessionRef(s)],
    noNewSession: "Hermes Agent's CLI cannot start an interactive session with a first message (only one-shot runs), so it cannot continue from a brief",
  },
  store: {
    // The location is the state.db file itself, as `--db` takes it.
    location: (env, home) => path.join(hermesHome(env, home), "state.db"),
    load: async () => (await import("./store.js")).hermesReader,
  },
};

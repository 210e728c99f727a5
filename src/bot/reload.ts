// SIGHUP / `baton reload`: what a changed config means for a running daemon. Which keys apply
// live and which need a restart is read from the config schema itself (each key is marked
// live(…) or restart(…) where it is defined, config/reload-marks.ts). Live keys are taken at once;
// the rest are named as needing a restart and keep their running values, so every later reload
// still reports them until Baton restarts.
import type { LoadedConfig } from "../config/load.js";
import type { ReloadKey } from "../config/reload-marks.js";
import { CONFIG_RELOAD_KEYS, type BatonConfig } from "../config/schema.js";

export interface ReloadPlan {
  /** The config to run with now: live keys from the file, the rest as they were. */
  running: LoadedConfig;
  applied: string[];
  restartNeeded: string[];
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function valueAt(config: unknown, path: string[]): unknown {
  return path.reduce<unknown>((v, key) => (v as Record<string, unknown> | undefined)?.[key], config);
}

/** `config` with `value` at `path`, copying each object on the way (the running config is shared). */
function withValueAt<T>(config: T, path: string[], value: unknown): T {
  const [key, ...rest] = path;
  const object = config as Record<string, unknown>;
  return { ...object, [key]: rest.length === 0 ? value : withValueAt(object[key], rest, value) } as T;
}

export function planReload(current: LoadedConfig, next: LoadedConfig, keys: readonly ReloadKey[] = CONFIG_RELOAD_KEYS): ReloadPlan {
  const applied: string[] = [];
  const restartNeeded: string[] = [];
  let config: BatonConfig = current.config;
  for (const { path, mark } of keys) {
    // Platform instances are named one by one below.
    if (path[0] === "platforms") continue;
    const after = valueAt(next.config, path);
    if (same(valueAt(current.config, path), after)) continue;
    if (mark === "live") {
      config = withValueAt(config, path, after);
      applied.push(path.join("."));
    } else restartNeeded.push(path.join("."));
  }
  for (const name of new Set([...current.platforms.map((p) => p.name), ...next.platforms.map((p) => p.name)])) {
    const before = current.platforms.find((p) => p.name === name);
    const after = next.platforms.find((p) => p.name === name);
    if (!same(before, after)) restartNeeded.push(`platforms.${name}`);
  }
  return { running: { ...current, config }, applied, restartNeeded };
}

export function reloadSummary(applied: string[], restartNeeded: string[]): string {
  const parts = [applied.length ? `applied ${applied.join(", ")}` : "nothing to apply live"];
  if (restartNeeded.length) parts.push(`needs a restart: ${restartNeeded.join(", ")}`);
  return `config reloaded: ${parts.join("; ")}`;
}

// SIGHUP / `baton reload`: what a changed config means for a running daemon. Sections the core can
// take live apply at once; the rest are named as needing a restart and keep their running values,
// so every later reload still reports them until Baton restarts.
import type { LoadedConfig } from "../config/load.js";
import type { BatonConfig } from "../config/schema.js";

/** Sections the running core takes without a restart. */
const LIVE: Array<keyof BatonConfig> = ["access", "agents", "workspaces", "rendering", "shutdown_grace"];
/** Sections bound to listeners, files or connections opened at start. */
const AT_START: Array<keyof BatonConfig> = ["data_dir", "handover", "store", "ops", "files", "machines"];

export interface ReloadPlan {
  /** The config to run with now: live sections from the file, the rest as they were. */
  running: LoadedConfig;
  applied: string[];
  restartNeeded: string[];
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function planReload(current: LoadedConfig, next: LoadedConfig): ReloadPlan {
  const applied: string[] = [];
  const restartNeeded: string[] = [];
  const config: BatonConfig = { ...current.config };
  const take = <K extends keyof BatonConfig>(key: K) => {
    config[key] = next.config[key];
  };
  for (const key of LIVE) {
    if (same(current.config[key], next.config[key])) continue;
    take(key);
    applied.push(key);
  }
  if (current.config.log.level !== next.config.log.level) {
    config.log = { ...config.log, level: next.config.log.level };
    applied.push("log.level");
  }
  if (current.config.log.format !== next.config.log.format) restartNeeded.push("log.format");
  for (const key of AT_START) if (!same(current.config[key], next.config[key])) restartNeeded.push(key);
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

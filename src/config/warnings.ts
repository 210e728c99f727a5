// What is allowed but probably wrong: a configured workspace that does not exist, or agents.nice:
// idle on a Linux without chrt to set it. `config validate`, `doctor` and `start` warn about it
// instead of failing, so a config written for a machine still loads on another.
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { which } from "../kernel/process.js";
import { expandHome, type LoadedConfig } from "./load.js";

export interface ConfigWarning {
  key: string;
  message: string;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export function configWarnings(loaded: LoadedConfig): ConfigWarning[] {
  const { workspaces } = loaded.config;
  const dirs: Array<[string, string]> = [
    ...workspaces.roots.map((r, i): [string, string] => [`workspaces.roots[${i}]`, r]),
    ...(workspaces.default ? [["workspaces.default", workspaces.default] as [string, string]] : []),
    ...Object.entries(workspaces.named).map(([name, p]): [string, string] => [`workspaces.named.${name}`, p]),
  ];
  const out: ConfigWarning[] = [];
  for (const [key, path] of dirs) {
    // `build:~/code` is on another machine: `baton doctor` checks those over SSH.
    if (/^[a-z][a-z0-9_-]*:/.test(path)) continue;
    const dir = resolve(expandHome(path));
    if (!isDirectory(dir)) out.push({ key, message: `${key}: ${dir} does not exist (create it, or change the config; a thread there cannot start)` });
  }
  // Elsewhere there is no idle class, and the lowest nice value is what idle means.
  if (loaded.config.agents.nice === "idle" && process.platform === "linux" && !which("chrt")) {
    out.push({ key: "agents.nice", message: "agents.nice: idle needs chrt (util-linux), which is not on PATH: agents run at the lowest nice value instead (install util-linux, or set a number)" });
  }
  return out;
}

// What is allowed but probably wrong: a configured workspace that does not exist, agents.nice:
// idle on a Linux without chrt to set it, an ops listener open to a network without a token. `config validate`, `doctor` and `start` warn about it
// instead of failing, so a config written for a machine still loads on another.
import { accessEntries, isGroupPrincipal } from "./principals.js";
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { which } from "../kernel/process.js";
import { parseListenAddress } from "../kernel/listen.js";
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
    ...Object.entries(workspaces.named).map(([name, p]): [string, string] => [`workspaces.named.${name}`, typeof p === "string" ? p : p.path]),
  ];
  const out: ConfigWarning[] = [];
  for (const [key, path] of dirs) {
    // `build:~/code` is on another machine: `baton doctor` checks those over SSH.
    if (/^[a-z][a-z0-9_-]*:/.test(path)) continue;
    const dir = resolve(expandHome(path));
    if (!isDirectory(dir)) out.push({ key, message: `${key}: ${dir} does not exist (create it, or change the config; a thread there cannot start)` });
  }
  const ops = loaded.config.ops;
  const opsAddress = ops.listen && ops.listen.trim().toLowerCase() !== "off" ? parseListenAddress(ops.listen) : undefined;
  if (opsAddress && !isLoopback(opsAddress.host) && !ops.token) {
    out.push({
      key: "ops.listen",
      message: `ops.listen: ${opsAddress.host} is not a loopback address and ops.token is not set: anyone who reaches port ${opsAddress.port} reads /status and /metrics. Set ops.token, or listen on 127.0.0.1`,
    });
  }
  // Since roles came in, everyone in access.allow is a member: a config written before them has no admin on its chats.
  const { allow, roles } = loaded.config.access;
  if (allow.length > 0 && roles.admin.length === 0) {
    out.push({
      key: "access.roles.admin",
      message: `access.roles.admin is empty: the people in access.allow are members, and nobody on a chat platform may /schedule, /switch, /session --switch or stop another's turn. Add your own id (such as ${allow.find((entry) => !isGroupPrincipal(entry)) ?? "slack:U0ABC"}) or a group to access.roles.admin`,
    });
  }
  out.push(...unreachableBindingEntries(loaded.config));
  // Elsewhere there is no idle class, and the lowest nice value is what idle means.
  if (loaded.config.agents.nice === "idle" && process.platform === "linux" && !which("chrt")) {
    out.push({ key: "agents.nice", message: "agents.nice: idle needs chrt (util-linux), which is not on PATH: agents run at the lowest nice value instead (install util-linux, or set a number)" });
  }
  return out;
}

/** A binding's allow narrows, it never widens: a user it names whom no access list lets in still cannot talk there. */
function unreachableBindingEntries(config: LoadedConfig["config"]): ConfigWarning[] {
  const access = accessEntries(config.access);
  const out: ConfigWarning[] = [];
  config.bindings.forEach((binding, index) => {
    for (const entry of binding.allow ?? []) {
      const platform = entry.slice(0, entry.indexOf(":"));
      if (entry === "web" || entry.endsWith(":*") || isGroupPrincipal(entry)) continue;
      // A group of the platform in access may hold them: that is known only when they write.
      if (access.some((a) => a === entry || a === `${platform}:*` || (isGroupPrincipal(a) && a.startsWith(`${platform}:`)))) continue;
      const key = `bindings[${index}].allow`;
      out.push({ key, message: `${key}: ${entry} is not in access.allow or access.roles, and a binding's allow only narrows who may talk: add ${entry} to access.allow too` });
    }
  });
  return out;
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\./.test(host) || host === "::ffff:127.0.0.1";
}

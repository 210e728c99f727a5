// `baton service install [--user|--system] [--user-name <name>] [--print] | status | logs | uninstall`:
// Baton as a systemd service (a launchd agent on macOS: service-launchd.ts). install writes the unit
// (with this config, data dir and PATH), then asks systemctl to load and start it; where systemctl
// cannot (no systemd running), it prints what to run. A system service runs as an account of its
// own: the one that ran `sudo`, or --user-name; its home and data dir are that account's, not root's.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, userInfo } from "node:os";
import { dirname, join, resolve } from "node:path";
import { which } from "../kernel/process.js";
import { findConfigFile, loadConfigFile, resolveDataDir, type LoadedConfig } from "../config/load.js";
import { CommandError, ConfigError } from "../kernel/errors.js";
import { batonLauncher } from "../handoff/setup/plan.js";
import { renderUnit, SERVICE_NAME, unitPath, type ServiceScope } from "./service-unit.js";
import { launchdDomain, launchdService, logPaths, plistPath, renderPlist } from "./service-launchd.js";

export interface ServiceOptions {
  config?: string;
  dataDir?: string;
  user?: boolean;
  system?: boolean;
  /** A system service: the account it runs as (else the one that ran sudo). */
  userName?: string;
}

/** The platform's service manager: launchd on macOS, systemd elsewhere. */
type Platform = NodeJS.Platform;
const isMac = (platform: Platform) => platform === "darwin";

interface Account {
  name: string;
  home: string;
}

/** An account's home from the system's user database (getent passwd, else /etc/passwd). */
export function accountNamed(name: string): Account {
  let entry: string | undefined;
  const res = spawnSync("getent", ["passwd", name], { encoding: "utf8" });
  if (res.status === 0) entry = res.stdout.trim();
  else if (res.error && existsSync("/etc/passwd"))
    entry = readFileSync("/etc/passwd", "utf8")
      .split("\n")
      .find((line) => line.split(":")[0] === name);
  const home = entry?.split(":")[5];
  if (!home) throw new CommandError(`There is no account named "${name}" on this machine.`);
  return { name, home };
}

const UNIT = `${SERVICE_NAME}.service`;

function scopeOf(options: ServiceOptions, env: NodeJS.ProcessEnv): ServiceScope {
  if (options.user && options.system) throw new CommandError("Choose one: --user or --system.");
  if (options.user) return "user";
  if (options.system) return "system";
  // Already installed: that one. Else root installs a system service, anyone else a user service.
  if (existsSync(unitPath("user", env))) return "user";
  if (existsSync(unitPath("system", env))) return "system";
  return process.getuid?.() === 0 ? "system" : "user";
}

/** Whom a system service runs as, and a warning when that is root. */
function serviceAccount(scope: ServiceScope, options: ServiceOptions, env: NodeJS.ProcessEnv): { account?: Account; warning?: string } {
  if (scope === "user") {
    if (options.userName) throw new CommandError("--user-name is for a system service (--system): a user service runs as you.");
    return {};
  }
  if (options.userName) return { account: accountNamed(options.userName) };
  const isRoot = process.getuid?.() === 0;
  if (isRoot && env.SUDO_USER && env.SUDO_USER !== "root") return { account: accountNamed(env.SUDO_USER) };
  if (!isRoot) return { account: { name: userInfo().username, home: env.HOME || homedir() } };
  return {
    account: { name: "root", home: env.HOME || homedir() },
    warning: "This service would run Baton, and every agent it starts, as root. Run it as another account: --user-name <name> (or `sudo baton service install` from that account).",
  };
}

/** A path given with ~ (or the default data dir) in the home of the account the service runs as. */
function inHome(path: string | undefined, home: string): string | undefined {
  if (path === undefined) return undefined;
  return path === "~" ? home : path.startsWith("~/") ? join(home, path.slice(2)) : resolve(path);
}

const scopeFlag = (scope: ServiceScope) => (scope === "user" ? ["--user"] : []);

/** The unit for this config and data dir, and warnings (the launcher points into a clone; the service runs as root). */
export function planUnit(
  options: ServiceOptions,
  env: NodeJS.ProcessEnv = process.env,
  platform: Platform = process.platform,
): { scope: ServiceScope; path: string; text: string; warnings: string[] } {
  if (isMac(platform) && options.system) throw new CommandError("On macOS Baton installs a launchd agent for your user (no --system): it runs while you are logged in.");
  const scope = isMac(platform) ? "user" : scopeOf(options, env);
  const { account, warning } = serviceAccount(scope, options, env);
  const home = account?.home ?? (env.HOME || homedir());
  // Looked up in the home of whoever the service runs as: under sudo, root's would be wrong.
  const ownConfig = join(home, ".config", "baton", "config.yaml");
  const config = findConfigFile({ flag: options.config, env }) ?? (existsSync(ownConfig) ? ownConfig : undefined);
  let loaded: LoadedConfig | undefined;
  try {
    loaded = config ? loadConfigFile(config, env) : undefined;
  } catch (error) {
    if (error instanceof ConfigError) throw new CommandError(`Fix the config first: ${error.userMessage}`);
    throw error;
  }
  const launcher = batonLauncher(env);
  const dataDir =
    account && account.home !== (env.HOME || homedir()) ? inHome(options.dataDir ?? env.BATON_DATA_DIR ?? loaded?.config.data_dir ?? "~/.baton", home)! : resolveDataDir(options.dataDir, loaded, env);
  const spec = { exec: [launcher.command, ...launcher.args], config, dataDir, path: env.PATH ?? "/usr/local/bin:/usr/bin:/bin", home, graceMs: loaded?.config.shutdown_grace ?? 30_000 };
  const warnings = [launcher.warning, warning].filter((w): w is string => !!w);
  if (isMac(platform)) return { scope, path: plistPath(home), text: renderPlist(spec), warnings };
  const text = renderUnit({ ...spec, scope, user: scope === "system" ? account?.name : undefined });
  return { scope, path: unitPath(scope, env), text, warnings };
}

function systemctl(scope: ServiceScope, args: string[], env: NodeJS.ProcessEnv): { ok: boolean; detail: string } {
  if (!which("systemctl", env)) return { ok: false, detail: "systemctl is not on PATH" };
  const res = spawnSync("systemctl", [...scopeFlag(scope), ...args], { env, encoding: "utf8" });
  return { ok: res.status === 0, detail: (res.stderr || res.stdout || "").trim().split("\n")[0] ?? "" };
}

/** Runs `command args`; where it is missing or fails, says what to run instead. */
function runSteps(command: string, steps: string[][], env: NodeJS.ProcessEnv, scopeArgs: string[] = []): boolean {
  for (const step of steps) {
    const res = which(command, env) ? spawnSync(command, [...scopeArgs, ...step], { env, encoding: "utf8" }) : undefined;
    if (res?.status !== 0) {
      const detail = res ? (res.stderr || res.stdout || "").trim().split("\n")[0] : `${command} is not on PATH`;
      const commands = steps.map((s) => `  ${[command, ...scopeArgs, ...s].join(" ")}`).join("\n");
      process.stdout.write(`${command} could not do it here (${detail}). Run:\n${commands}\n`);
      return false;
    }
  }
  return true;
}

const uid = () => process.getuid?.() ?? 0;

export function runServiceInstall(options: ServiceOptions & { print?: boolean }, env: NodeJS.ProcessEnv = process.env, platform: Platform = process.platform): number {
  const plan = planUnit(options, env, platform);
  for (const warning of plan.warnings) process.stderr.write(`baton: ${warning}\n`);
  if (options.print) {
    process.stdout.write(plan.text);
    return 0;
  }
  mkdirSync(dirname(plan.path), { recursive: true });
  writeFileSync(plan.path, plan.text, { mode: 0o644 });
  process.stdout.write(`✓ wrote ${plan.path}\n`);
  if (isMac(platform)) {
    mkdirSync(dirname(logPaths(env.HOME || homedir()).out), { recursive: true });
    // A job loaded before (an earlier install) is unloaded first: bootstrap refuses a loaded label.
    if (which("launchctl", env)) spawnSync("launchctl", ["bootout", launchdService(uid())], { env, stdio: "ignore" });
    if (runSteps("launchctl", [["bootstrap", launchdDomain(uid()), plan.path]], env)) {
      process.stdout.write(`✓ the launchd agent ${SERVICE_NAME} is loaded and started. \`baton service status\`, \`baton service logs\`, \`baton status\`.\n`);
    }
    return 0;
  }
  if (runSteps("systemctl", [["daemon-reload"], ["enable", "--now", UNIT]], env, scopeFlag(plan.scope))) {
    process.stdout.write(`✓ ${UNIT} is enabled and started (${plan.scope}). \`baton service status\`, \`baton service logs\`, \`baton status\`.\n`);
    if (plan.scope === "user") process.stdout.write(`To keep it running while you are logged out: loginctl enable-linger ${userInfo().username}\n`);
  }
  return 0;
}

/** `status` and `logs` hand over to systemctl / journalctl (launchctl / tail on macOS), with their output and exit code. */
export function runServiceTool(what: "status" | "logs", options: ServiceOptions & { follow?: boolean }, env: NodeJS.ProcessEnv = process.env, platform: Platform = process.platform): number {
  let command: string;
  let args: string[];
  if (isMac(platform)) {
    const logs = logPaths(env.HOME || homedir());
    [command, args] = what === "status" ? ["launchctl", ["print", launchdService(uid())]] : ["tail", ["-n", "200", ...(options.follow ? ["-F"] : []), logs.out, logs.err]];
  } else {
    const scope = scopeOf(options, env);
    [command, args] =
      what === "status"
        ? ["systemctl", [...scopeFlag(scope), "status", "--no-pager", UNIT]]
        : ["journalctl", [...scopeFlag(scope), "-u", UNIT, "--no-pager", ...(options.follow ? ["-f"] : ["-n", "200"])]];
  }
  if (!which(command, env)) throw new CommandError(`${command} is not on PATH: is this a ${isMac(platform) ? "macOS" : "systemd"} machine?`);
  return spawnSync(command, args, { env, stdio: "inherit" }).status ?? 1;
}

export function runServiceUninstall(options: ServiceOptions, env: NodeJS.ProcessEnv = process.env, platform: Platform = process.platform): number {
  if (isMac(platform)) {
    const path = plistPath(env.HOME || homedir());
    if (!existsSync(path)) throw new CommandError(`No launchd agent installed (${path} does not exist).`);
    const stopped = which("launchctl", env) ? spawnSync("launchctl", ["bootout", launchdService(uid())], { env, encoding: "utf8" }) : undefined;
    if (stopped?.status !== 0) process.stderr.write(`baton: launchctl bootout ${launchdService(uid())}: ${stopped ? (stopped.stderr || "").trim() : "launchctl is not on PATH"}\n`);
    rmSync(path);
    process.stdout.write(`✓ removed ${path}\n`);
    return 0;
  }
  const scope = scopeOf(options, env);
  const path = unitPath(scope, env);
  if (!existsSync(path)) throw new CommandError(`No ${scope} service installed (${path} does not exist).`);
  const stopped = systemctl(scope, ["disable", "--now", UNIT], env);
  if (!stopped.ok) process.stderr.write(`baton: systemctl disable --now ${UNIT}: ${stopped.detail}\n`);
  rmSync(path);
  systemctl(scope, ["daemon-reload"], env);
  process.stdout.write(`✓ removed ${path}\n`);
  return 0;
}

/** For tests and `doctor`: whether `systemd-analyze verify` accepts a unit file (undefined: not available). */
export function verifyUnitFile(path: string): { ok: boolean; output: string } | undefined {
  if (!which("systemd-analyze")) return undefined;
  try {
    return { ok: true, output: execFileSync("systemd-analyze", ["verify", path], { encoding: "utf8", stdio: "pipe" }) };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    return { ok: false, output: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}

// `baton service install [--user|--system] [--print] | status | logs | uninstall`: Baton as a
// systemd service. install writes the unit (with this config, data dir and PATH), then asks
// systemctl to load and start it; where systemctl cannot (no systemd running), it prints what to run.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { homedir, userInfo } from "node:os";
import { dirname } from "node:path";
import { which } from "../kernel/process.js";
import { findConfigFile, loadConfigFile, resolveDataDir, type LoadedConfig } from "../config/load.js";
import { CommandError, ConfigError } from "../kernel/errors.js";
import { batonLauncher } from "../handoff/setup/plan.js";
import { renderUnit, SERVICE_NAME, unitPath, type ServiceScope } from "./service-unit.js";

export interface ServiceOptions {
  config?: string;
  dataDir?: string;
  user?: boolean;
  system?: boolean;
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

const scopeFlag = (scope: ServiceScope) => (scope === "user" ? ["--user"] : []);

/** The unit for this config and data dir, and a warning when the launcher would point into a clone. */
export function planUnit(options: ServiceOptions, env: NodeJS.ProcessEnv = process.env): { scope: ServiceScope; path: string; text: string; warning?: string } {
  const scope = scopeOf(options, env);
  const config = findConfigFile({ flag: options.config, env });
  let loaded: LoadedConfig | undefined;
  try {
    loaded = config ? loadConfigFile(config, env) : undefined;
  } catch (error) {
    if (error instanceof ConfigError) throw new CommandError(`Fix the config first: ${error.userMessage}`);
    throw error;
  }
  const launcher = batonLauncher(env);
  const home = env.HOME || homedir();
  const text = renderUnit({
    scope,
    exec: [launcher.command, ...launcher.args],
    config,
    dataDir: resolveDataDir(options.dataDir, loaded, env),
    path: env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    home,
    user: scope === "system" ? (env.SUDO_USER || userInfo().username) : undefined,
    graceMs: loaded?.config.shutdown_grace ?? 30_000,
  });
  return { scope, path: unitPath(scope, env), text, warning: launcher.warning };
}

function systemctl(scope: ServiceScope, args: string[], env: NodeJS.ProcessEnv): { ok: boolean; detail: string } {
  if (!which("systemctl", env)) return { ok: false, detail: "systemctl is not on PATH" };
  const res = spawnSync("systemctl", [...scopeFlag(scope), ...args], { env, encoding: "utf8" });
  return { ok: res.status === 0, detail: (res.stderr || res.stdout || "").trim().split("\n")[0] ?? "" };
}

export function runServiceInstall(options: ServiceOptions & { print?: boolean }, env: NodeJS.ProcessEnv = process.env): number {
  const plan = planUnit(options, env);
  if (plan.warning) process.stderr.write(`baton: ${plan.warning}\n`);
  if (options.print) {
    process.stdout.write(plan.text);
    return 0;
  }
  mkdirSync(dirname(plan.path), { recursive: true });
  writeFileSync(plan.path, plan.text, { mode: 0o644 });
  process.stdout.write(`✓ wrote ${plan.path}\n`);
  const steps = [["daemon-reload"], ["enable", "--now", UNIT]];
  for (const step of steps) {
    const result = systemctl(plan.scope, step, env);
    if (!result.ok) {
      const commands = steps.map((s) => `  systemctl ${[...scopeFlag(plan.scope), ...s].join(" ")}`).join("\n");
      process.stdout.write(`systemctl could not do it here (${result.detail}). Run:\n${commands}\n`);
      return 0;
    }
  }
  process.stdout.write(`✓ ${UNIT} is enabled and started (${plan.scope}). \`baton service status\`, \`baton service logs\`, \`baton status\`.\n`);
  if (plan.scope === "user") process.stdout.write(`To keep it running while you are logged out: loginctl enable-linger ${userInfo().username}\n`);
  return 0;
}

/** `status` and `logs` hand over to systemctl / journalctl, with their output and exit code. */
export function runServiceTool(what: "status" | "logs", options: ServiceOptions & { follow?: boolean }, env: NodeJS.ProcessEnv = process.env): number {
  const scope = scopeOf(options, env);
  const [command, args] =
    what === "status"
      ? ["systemctl", [...scopeFlag(scope), "status", "--no-pager", UNIT]]
      : ["journalctl", [...scopeFlag(scope), "-u", UNIT, "--no-pager", ...(options.follow ? ["-f"] : ["-n", "200"])]];
  if (!which(command, env)) throw new CommandError(`${command} is not on PATH: is this a systemd machine?`);
  return spawnSync(command, args, { env, stdio: "inherit" }).status ?? 1;
}

export function runServiceUninstall(options: ServiceOptions, env: NodeJS.ProcessEnv = process.env): number {
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

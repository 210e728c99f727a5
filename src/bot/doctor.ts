// `baton doctor`: the config, the data dir's modes, the agents (and whether any real one is
// installed), access for each chat platform, configured workspaces, each configured machine and
// each enabled platform's credentials ("cannot reach" kept apart from "token rejected"). Exit 1
// when something fails; warnings keep "All good." away but not the exit code.
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { agentKinds, firstInstalledKind } from "../agents/products/index.js";
import { which } from "../kernel/process.js";
import type { PlatformSnapshots } from "../platforms/contract.js";
import { PLATFORM_KINDS } from "../platforms/registry.js";
import { ConfigError } from "../kernel/errors.js";
import { defaultConfig, findConfigFile, loadConfigFile, resolveDataDir, type LoadedConfig } from "../config/load.js";
import { configWarnings } from "../config/warnings.js";
import { accessEntries, accessListEntries } from "../config/principals.js";
import { worktreeChecks } from "./doctor-worktrees.js";

/** `info`: worth knowing, nothing to fix (an agent you do not use is not installed). */
type Status = "ok" | "info" | "warn" | "fail";
interface Check {
  area: string;
  status: Status;
  message: string;
}

const MARK: Record<Status, string> = { ok: "✓", info: "·", warn: "!", fail: "✗" };
/** Platforms whose users are authenticated by Baton's own token, not by access.allow. */
const SELF_AUTHENTICATED = new Set(["web"]);

export async function runDoctor(options: { config?: string; dataDir?: string; json?: boolean }): Promise<number> {
  const checks: Check[] = [];
  let loaded: LoadedConfig | undefined;
  const path = findConfigFile({ flag: options.config });
  try {
    loaded = path ? loadConfigFile(path) : defaultConfig();
    checks.push({ area: "config", status: "ok", message: path ? `${path} is valid` : "no config file: the embedded default (web chat + first agent found)" });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    checks.push({ area: "config", status: "fail", message: error.userMessage });
  }

  const dataDir = resolveDataDir(options.dataDir, loaded);
  checks.push(checkMode("data dir", dataDir, 0o700, true));
  for (const secret of ["web-token", "mcp-token"]) {
    const file = join(dataDir, secret);
    if (existsSync(file)) checks.push(checkMode(secret, file, 0o600, false));
  }

  checks.push(...agentChecks(loaded));
  if (loaded) {
    for (const w of configWarnings(loaded)) checks.push({ area: w.key.startsWith("ops.") ? "ops" : "workspace", status: "warn", message: w.message });
    checks.push(...accessChecks(loaded));
  }

  // Each machine, connected to exactly as the daemon would (host key checked); the agents the config uses.
  if (loaded && Object.keys(loaded.config.machines).length > 0) {
    const configured = configuredAgents(loaded);
    const { checkMachine } = await import("../agents/machines/doctor.js");
    const used = agentKinds().filter((k) => configured.has(k.id) || (k.id === firstInstalledKind().id && loaded!.config.agents.default === "auto"));
    for (const [name, machine] of Object.entries(loaded.config.machines)) {
      const overridden = agentKinds().filter((k) => machine.agents[k.id] && !used.includes(k));
      checks.push(...(await checkMachine(name, machine, [...used, ...overridden])));
    }
  }

  // Several instances share state on PostgreSQL: reachable, version, schema, leadership, clock.
  let shared: { snapshots: Pick<PlatformSnapshots, "load">; close(): Promise<void> } | undefined;
  if (loaded?.config.store.url) {
    const { checkDatabase, platformSnapshotsReader } = await import("../store/postgres/doctor.js");
    const database = await checkDatabase(loaded.config.store.url);
    for (const c of database) checks.push({ area: "database", ...c });
    if (!database.some((c) => c.status === "fail")) shared = platformSnapshotsReader(loaded.config.store.url);
  }

  checks.push(...worktreeChecks(dataDir, Boolean(loaded?.config.store.url)));

  checks.push(...(await platformChecks(loaded, dataDir, shared?.snapshots)));
  await shared?.close();

  const failed = checks.some((c) => c.status === "fail");
  const warnings = checks.filter((c) => c.status === "warn").length;
  if (options.json) process.stdout.write(`${JSON.stringify({ ok: !failed, warnings, checks }, null, 2)}\n`);
  else {
    for (const c of checks) process.stdout.write(`${MARK[c.status]} ${c.area.padEnd(18)} ${c.message}\n`);
    process.stdout.write(failed ? "\nSome checks failed.\n" : warnings ? `\n${warnings} warning${warnings === 1 ? "" : "s"}: see the lines marked !.\n` : "\nAll good.\n");
  }
  return failed ? 1 : 0;
}

/** Each configured platform's own check of its credentials (and, for Matrix, its login and keys). */
async function platformChecks(loaded: LoadedConfig | undefined, dataDir: string, snapshots: Pick<PlatformSnapshots, "load"> | undefined): Promise<Check[]> {
  const checks: Check[] = [];
  for (const p of loaded?.platforms ?? []) {
    const kind = PLATFORM_KINDS[p.kind];
    if (!kind.doctor) {
      checks.push({ area: `platform ${p.name}`, status: "ok", message: "configuration complete" });
      continue;
    }
    try {
      const accessEntries = loaded ? accessListEntries(loaded.config) : [];
      const check = await (await kind.doctor())(p.config, { dataDir, name: p.name, snapshots, accessEntries });
      // Out of reach says nothing about the credentials: a warning, not a failure of the config.
      const status: Status = check.ok ? "ok" : check.unreachable ? "warn" : "fail";
      checks.push({ area: `platform ${p.name}`, status, message: check.lines.join("; ") });
    } catch (error) {
      checks.push({ area: `platform ${p.name}`, status: "fail", message: `check failed: ${(error as Error).message}` });
    }
  }
  return checks;
}

/** The agent kinds the config names: the default and those of its profiles. */
function configuredAgents(loaded: LoadedConfig | undefined): Set<string | undefined> {
  return new Set([loaded?.config.agents.default, ...Object.values(loaded?.config.agents.profiles ?? {}).map((p) => p.agent)]);
}

function agentChecks(loaded: LoadedConfig | undefined): Check[] {
  const checks: Check[] = [];
  const configured = configuredAgents(loaded);
  let real = 0;
  for (const kind of agentKinds()) {
    if (kind.id === "demo") continue;
    const acp = kind.acpCommand().command;
    const found = which(acp);
    const cli = kind.cliCommand ? which(kind.cliCommand) : found;
    if (found && cli) {
      real++;
      checks.push({ area: `agent ${kind.id}`, status: "ok", message: `${kind.displayName}: ${found}` });
      continue;
    }
    const missing = [!cli && kind.cliCommand ? `\`${kind.cliCommand}\`` : "", !found ? `ACP adapter \`${acp}\`` : ""].filter(Boolean).join(" and ");
    checks.push({ area: `agent ${kind.id}`, status: configured.has(kind.id) ? "fail" : "info", message: `${kind.displayName}: ${missing} not found. Install: ${kind.installHint}` });
  }
  for (const [id, custom] of Object.entries(loaded?.config.agents.custom ?? {})) {
    const found = which(custom.command);
    if (found) real++;
    checks.push({
      area: `agent ${id}`,
      status: found ? "ok" : configured.has(id) ? "fail" : "warn",
      message: found ? `${custom.display_name ?? id}: ${found}` : `${custom.command} not found on PATH`,
    });
  }
  if (real === 0) {
    checks.push({ area: "agents", status: "warn", message: "no real agent installed: chats get the bundled demo agent. Install one of the agents above, then restart Baton." });
  }
  return checks;
}

/** An IM platform nobody is allowed on refuses everyone: almost certainly not what was meant. */
function accessChecks(loaded: LoadedConfig): Check[] {
  const listed = accessEntries(loaded.config.access);
  return loaded.platforms
    .filter((p) => !SELF_AUTHENTICATED.has(p.kind) && !listed.some((id) => id.startsWith(`${p.kind}:`)))
    .map((p) => ({
      area: `access ${p.name}`,
      status: "warn" as const,
      message: `${p.name} is enabled but access.allow and access.roles name no ${p.kind}: user or group, so everyone there is refused. Add ${p.kind}:<user id> (the bot tells each refused user their id).`,
    }));
}

function checkMode(area: string, path: string, want: number, isDir: boolean): Check {
  if (!existsSync(path)) return { area, status: "ok", message: `${path} (created on first start)` };
  const st = statSync(path);
  if (isDir !== st.isDirectory()) return { area, status: "fail", message: `${path} is not a ${isDir ? "directory" : "file"}` };
  const mode = st.mode & 0o777;
  if (mode & 0o077) return { area, status: "fail", message: `${path} has mode ${mode.toString(8)}; run chmod ${want.toString(8)} ${path}` };
  return { area, status: "ok", message: `${path} (mode ${mode.toString(8)})` };
}

// `baton doctor`: the config, the data dir's modes, every agent kind (found or not, with the
// install hint), each configured machine and each enabled platform's credentials. Exit 0 when
// nothing is wrong.
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { AGENT_KINDS, firstInstalledKind, which } from "../agents/kinds/index.js";
import { PLATFORM_KINDS } from "../platforms/registry.js";
import { ConfigError } from "../kernel/errors.js";
import { defaultConfig, findConfigFile, loadConfigFile, type LoadedConfig } from "../config/load.js";
import { resolveDataDir } from "../config/load.js";

type Status = "ok" | "warn" | "fail";
interface Check { area: string; status: Status; message: string }

const MARK: Record<Status, string> = { ok: "✓", warn: "!", fail: "✗" };

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

  const configured = new Set([loaded?.config.agents.default, ...Object.values(loaded?.config.agents.profiles ?? {}).map((p) => p.agent)]);
  for (const kind of AGENT_KINDS) {
    if (kind.id === "demo") continue;
    const acp = kind.acpCommand().command;
    const found = which(acp);
    const cli = kind.cliCommand ? which(kind.cliCommand) : found;
    const wanted = configured.has(kind.id);
    if (found && cli) checks.push({ area: `agent ${kind.id}`, status: "ok", message: `${kind.displayName}: ${found}` });
    else {
      const missing = [!cli && kind.cliCommand ? `\`${kind.cliCommand}\`` : "", !found ? `ACP adapter \`${acp}\`` : ""].filter(Boolean).join(" and ");
      checks.push({ area: `agent ${kind.id}`, status: wanted ? "fail" : "warn", message: `${kind.displayName}: ${missing} not found. Install: ${kind.installHint}` });
    }
  }

  // Each machine, connected to exactly as the daemon would (host key checked); the agents the config uses.
  if (loaded && Object.keys(loaded.config.machines).length > 0) {
    const { checkMachine } = await import("../agents/machines/doctor.js");
    const used = AGENT_KINDS.filter((k) => configured.has(k.id) || (k.id === firstInstalledKind().id && loaded!.config.agents.default === "auto"));
    for (const [name, machine] of Object.entries(loaded.config.machines)) {
      const overridden = AGENT_KINDS.filter((k) => machine.agents[k.id] && !used.includes(k));
      checks.push(...(await checkMachine(name, machine, [...used, ...overridden])));
    }
  }

  for (const p of loaded?.platforms ?? []) {
    const kind = PLATFORM_KINDS[p.kind];
    if (!kind.doctor) {
      checks.push({ area: `platform ${p.name}`, status: "ok", message: "configuration complete" });
      continue;
    }
    try {
      const check = await (await kind.doctor())(p.config, { dataDir, name: p.name });
      checks.push({ area: `platform ${p.name}`, status: check.ok ? "ok" : "fail", message: check.lines.join("; ") });
    } catch (error) {
      checks.push({ area: `platform ${p.name}`, status: "fail", message: `check failed: ${(error as Error).message}` });
    }
  }

  const failed = checks.some((c) => c.status === "fail");
  if (options.json) process.stdout.write(JSON.stringify({ ok: !failed, checks }, null, 2) + "\n");
  else {
    for (const c of checks) process.stdout.write(`${MARK[c.status]} ${c.area.padEnd(18)} ${c.message}\n`);
    process.stdout.write(failed ? "\nSome checks failed.\n" : "\nAll good.\n");
  }
  return failed ? 1 : 0;
}

function checkMode(area: string, path: string, want: number, isDir: boolean): Check {
  if (!existsSync(path)) return { area, status: "ok", message: `${path} (created on first start)` };
  const st = statSync(path);
  if (isDir !== st.isDirectory()) return { area, status: "fail", message: `${path} is not a ${isDir ? "directory" : "file"}` };
  const mode = st.mode & 0o777;
  if (mode & 0o077) return { area, status: "fail", message: `${path} has mode ${mode.toString(8)}; run chmod ${want.toString(8)} ${path}` };
  return { area, status: "ok", message: `${path} (mode ${mode.toString(8)})` };
}

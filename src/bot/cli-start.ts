// `baton start`: load the config (or the embedded default), start the daemon, print one line per
// platform. SIGTERM / SIGINT drain and stop; SIGHUP re-reads the config and applies what it can.
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { BATON_ROOT } from "../kernel/install.js";
import { ConfigError, userMessageOf } from "../kernel/errors.js";
import { loadConfigOrDefault, resolveDataDir, type LoadedConfig } from "../config/load.js";
import { applyStartOverrides } from "../config/overrides.js";
import { configWarnings } from "../config/warnings.js";
import { createLogger, type Logger } from "../kernel/log.js";
import type { Daemon } from "./daemon.js";
import type { ClusterOptions, RunningCluster } from "./cluster.js";
import { reloadSummary } from "./reload.js";

interface GlobalOptions {
  config?: string;
  dataDir?: string;
}

export interface StartOptions extends GlobalOptions {
  port?: string;
}

function sameDir(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

function load(options: StartOptions): { loaded: LoadedConfig; notes: string[] } {
  const loaded = loadConfigOrDefault(options.config);
  return { loaded, notes: applyStartOverrides(loaded, { port: options.port }) };
}

export async function runStart(options: StartOptions): Promise<void> {
  let loaded: LoadedConfig;
  let notes: string[];
  try {
    ({ loaded, notes } = load(options));
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`baton: ${error.userMessage}`);
      process.exit(1);
    }
    throw error;
  }
  const dataDir = resolveDataDir(options.dataDir, loaded);
  const log = createLogger({ level: loaded.config.log.level, format: loaded.config.log.format });
  for (const note of notes) log.warn(note);
  for (const warning of configWarnings(loaded)) log.warn({ key: warning.key }, warning.message);
  // `npm start` in a clone runs in Baton's own folder: that is no place for an agent to work.
  const ownFolder = !loaded.config.workspaces.default && sameDir(process.cwd(), BATON_ROOT);
  const cwd = ownFolder ? homedir() : process.cwd();
  const announce = {
    onPlatformStarted: (info: { description: string }) => process.stdout.write(`${info.description}\n`),
    onPlatformDegraded: ({ name, problem }: { name: string; problem: string }) =>
      process.stdout.write(`${name}: ${problem} Baton keeps trying and connects it when it answers (\`baton status\` shows it as degraded meanwhile).\n`),
  };
  if (loaded.config.store.url) return runClustered({ loaded, dataDir, log, cwd, ...announce }, options);
  const { startDaemon } = await import("./daemon.js");
  const startedAt = Date.now();
  let daemon: Daemon;
  try {
    daemon = await startDaemon({
      loaded,
      dataDir,
      log,
      cwd,
      ...announce,
    });
  } catch (error) {
    console.error(`baton: could not start: ${userMessageOf(error)}`);
    if (!(error instanceof ConfigError)) log.error({ err: error }, "start failed");
    process.exit(1);
  }
  // Signals are handled before "ready" is announced: a service manager (or a test) that stops
  // Baton as soon as it reads that line must find the handler in place.
  handleSignals(daemon, options, log);
  await announceReady(daemon, { loaded, dataDir, ownFolder, ms: Date.now() - startedAt });
}

async function announceReady(daemon: Daemon, at: { loaded: LoadedConfig; dataDir: string; ownFolder: boolean; ms: number; role?: string }): Promise<void> {
  const host = daemon.core.agents.defaultHost();
  const workspace = await daemon.core.workspaces.default();
  process.stdout.write(
    `Baton ready in ${at.ms} ms${at.role ? ` (${at.role})` : ""} — ${at.loaded.path ? `config ${at.loaded.path}` : "no config file, using the embedded default"}; ` +
      `default agent: ${daemon.core.agents.displayName(host.agent)}; workspace: ${workspace}${at.ownFolder ? " (the home directory: Baton's own folder is not a workspace)" : ""}; data in ${at.dataDir}\n`,
  );
  if (daemon.opsUrl) process.stdout.write(`Ops: ${daemon.opsUrl}/healthz, /metrics, /status\n`);
}

/** store.url: stand by until this instance leads; SIGTERM drains and hands over, SIGUSR2 steps down. */
async function runClustered(daemonOptions: ClusterOptions, options: StartOptions): Promise<void> {
  const { startCluster, instanceIdOf } = await import("./cluster.js");
  const { loaded, dataDir, log } = daemonOptions;
  let startedAt = Date.now();
  let cluster: RunningCluster;
  try {
    cluster = await startCluster({
      ...daemonOptions,
      onLeading: (daemon, epoch) => void announceReady(daemon, { loaded, dataDir, ownFolder: false, ms: Date.now() - startedAt, role: `leading, epoch ${epoch}` }),
      onStandby: () => {
        startedAt = Date.now();
      },
    });
  } catch (error) {
    console.error(`baton: could not start: ${userMessageOf(error)}`);
    if (!(error instanceof ConfigError)) log.error({ err: error }, "start failed");
    process.exit(1);
  }
  process.stdout.write(`Baton standing by as instance ${instanceIdOf(loaded, dataDir)}: it serves once it takes the lead\n`);
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    log.info({ signal }, "shutting down: draining, then handing the lead over");
    await cluster.stop().catch((error: unknown) => log.error({ err: error }, "shutdown failed"));
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGUSR2", () => void cluster.stepDown());
  process.on("SIGHUP", () => {
    const daemon = cluster.daemon();
    if (!daemon || stopping) return;
    const report = daemon.reload(() => load(options).loaded);
    if (!report.ok) log.error({ error: report.error }, "config reload failed; nothing changed");
    else log.info({ applied: report.applied, restartNeeded: report.restartNeeded }, reloadSummary(report.applied, report.restartNeeded));
  });
}

function handleSignals(daemon: Daemon, options: StartOptions, log: Logger): void {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) {
      process.stderr.write("baton: second signal, exiting now\n");
      process.exit(1);
    }
    stopping = true;
    const counts = daemon.core.counts();
    log.info({ signal, turnsRunning: counts.turnsRunning, queued: counts.queuedPrompts }, "shutting down: no new turns; running turns may finish within shutdown_grace");
    try {
      await daemon.stop();
    } catch (error) {
      log.error({ err: error }, "shutdown failed");
      process.exit(1);
    }
    // Some SDKs keep timers alive after stopping; the daemon is done, so exit explicitly.
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGHUP", () => {
    if (stopping) return;
    const report = daemon.reload(() => load(options).loaded);
    if (!report.ok) log.error({ error: report.error }, "config reload failed; nothing changed");
    else log.info({ applied: report.applied, restartNeeded: report.restartNeeded }, reloadSummary(report.applied, report.restartNeeded));
  });
}

// Wires a running Baton: data dir → event log → registry replay → core → platforms. `bot/` is the
// only place that knows every part; the parts know only their small interfaces.
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import type { CommonPlatformSettings, PlatformAdapter, PlatformCursors, PlatformSnapshots, StartInfo } from "../platforms/contract.js";
import { registerSecretValues, urlCredentials } from "../kernel/secrets.js";
import { PLATFORM_KINDS } from "../platforms/registry.js";
import { JsonlEventStore, type EventLogStore } from "../threads/store.js";
import { ThreadRegistry } from "../threads/registry.js";
import type { LoadedConfig } from "../config/load.js";
import { BatonCore } from "../core/core.js";
import type { RunningTurnsStore } from "../core/cut-turns.js";
import { startHandover, type RunningHandover } from "../pickup/index.js";
import { openHandoverKv, type HandoverKv } from "../pickup/kv.js";
import type { Logger } from "../kernel/log.js";
import { acquireDataDirLock } from "./lock.js";
import { DEFAULT_OPS_LISTEN } from "../config/schema.js";
import { MetricsRecorder } from "../ops/recorder.js";
import { meteredAdapter, meteredCore } from "../ops/metered.js";
import { startOps, type RunningOps } from "../ops/server.js";
import type { ClusterState, DaemonSnapshot, PlatformHealth, ReloadReport } from "../ops/snapshot.js";
import { reloadDaemon, snapshotOf, type DaemonStatus } from "./daemon-status.js";
import { PlatformStarter } from "./platform-start.js";
import { loadMarkdown } from "../render/markdown.js";

const DATA_DIR_MODE = 0o700;
/** How often a running daemon drops audit events older than audit.keep (the start does it too). */
const AUDIT_EXPIRY_EVERY_MS = 24 * 3_600_000;

export interface DaemonOptions {
  loaded: LoadedConfig;
  dataDir: string;
  log: Logger;
  /** Adapters built by the caller (tests), started like configured ones, with their common settings. */
  extraAdapters?: Array<PlatformAdapter | { adapter: PlatformAdapter; settings: Partial<CommonPlatformSettings> }>;
  /** Defaults to the JSONL log in the data dir. */
  store?: EventLogStore;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** With store.url: where platforms keep how far they have read, for the next leader. */
  cursors?: PlatformCursors;
  /** With store.url: where platforms keep the state that follows the leader (Matrix's login and crypto store). */
  snapshots?: PlatformSnapshots;
  /** With store.url: pickup codes and their limits on PostgreSQL, shared by the instances. */
  handoverKv?: HandoverKv;
  /** With store.url: where running turns are kept, for the next leader to mark them cut off. */
  runningTurns?: RunningTurnsStore;
  /** The clock of limits per person (tests move it); Date.now by default. */
  now?: () => number;
  /** With store.url: this instance's part among several (shown by status and metrics). */
  cluster?: () => ClusterState;
  /** Called once per started platform with its one-line description (also for one that connects later). */
  onPlatformStarted?(info: StartInfo & { name: string }): void;
  /** Called for a platform that could not be reached at start: the others serve; it is retried. */
  onPlatformDegraded?(info: { name: string; problem: string }): void;
}

export interface Daemon {
  core: BatonCore;
  adapters: PlatformAdapter[];
  /** The ops listener's URL (/healthz, /metrics, /status); undefined when `ops.listen: off`. */
  opsUrl?: string;
  snapshot(): DaemonSnapshot;
  /**
   * Re-reads the config with `load` and applies what can change live; the rest is named as needing
   * a restart. A config that does not load changes nothing (the report says why).
   */
  reload(load: () => LoadedConfig): ReloadReport;
  /** Drains (running turns get `graceMs`, default shutdown_grace), then stops everything. */
  stop(graceMs?: number): Promise<void>;
}

/** Names this daemon in files it leaves on other machines (so it removes only its own). */
function daemonOwnerId(dataDir: string): string {
  return createHash("sha256").update(`${hostname()}\0${dataDir}`).digest("hex").slice(0, 16);
}

export function ensureDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: DATA_DIR_MODE });
  chmodSync(dataDir, DATA_DIR_MODE);
}

export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const { loaded, dataDir, log } = options;
  const { registry, store, releaseLock } = await openThreads(options);
  // A start that fails after the log opened closes it and frees the data dir again.
  const undoOpen = async () => {
    await store.close();
    releaseLock();
  };
  // Passwords inside the config's URLs are secrets Baton knows: no log line or message shows them.
  registerSecretValues([loaded.config.store.kv, loaded.config.voice.transcription?.url, ...Object.values(loaded.config.machines).map((m) => m.handover_url)].flatMap(urlCredentials));
  const recorder = new MetricsRecorder();
  // Pickup codes and limits per person share one store: memory, Redis (store.kv) or PostgreSQL (store.url).
  const kv = await orUndo(async () => options.handoverKv ?? (await openHandoverKv(loaded.config.store.kv, (error) => log.warn({ err: error }, "handover store (Redis) error; retrying"))), undoOpen);
  const core = new BatonCore({
    config: loaded.config,
    dataDir,
    registry,
    log,
    env: options.env,
    cwd: options.cwd,
    metrics: recorder,
    runningTurns: options.runningTurns,
    cursors: options.cursors,
    limitStore: kv,
    now: options.now,
  });
  const status: DaemonStatus = { current: loaded, state: "starting", health: [], startedAt: new Date().toISOString() };
  const snapshot = () => snapshotOf(status, core, options.cluster);
  // Subagents that were running when the last daemon stopped resume when their thread's agent starts again.
  await core.subagents.markInterrupted();
  // Pickup codes, /pickup and the MCP endpoint for terminal agents (src/pickup/, src/mcp/).
  const handover = await orUndo(() => startHandover({ core, config: loaded.config, dataDir, log, kv }), undoOpen);
  connectHandover(core, handover, dataDir);
  const platforms: StartedPlatforms = { adapters: [], running: [], health: status.health };
  let ops: RunningOps | undefined;
  const starter = platformStarter(options, core, recorder, platforms);
  const auditExpiry = expireAuditDaily(registry, status, log);
  // A second stop waits for the first: it never drains again, nor touches a data dir that another
  // daemon may have opened since.
  let stopping: Promise<void> | undefined;
  const stop = (graceMs?: number) => (stopping ??= stopDaemon({ status, auditExpiry, starter, core, handover, ops: () => ops, platforms, log, closeLog: undoOpen }, graceMs));
  try {
    const { listen, token } = loaded.config.ops;
    ops = await startOps({ listen: listen ?? DEFAULT_OPS_LISTEN, isDefault: listen === undefined, token, dataDir, recorder, snapshot, log });
    await startPlatforms({ options, core, recorder, starter, platforms });
    // Scheduled prompts start once every platform that can be reached can deliver them.
    core.chat.scheduler.start();
  } catch (error) {
    // Whatever started (handover, platforms) is stopped again: a failed start leaves nothing running.
    await stop();
    throw error;
  }
  status.state = "running";
  warmUp(log, () => core.prepareSpare());
  const resumed = await core.resumeQueued();
  if (resumed > 0) log.info({ prompts: resumed }, "running prompts queued before the restart");
  return { core, adapters: platforms.adapters, opsUrl: ops.url, snapshot, reload: (load) => reloadDaemon(status, core, log, load), stop };
}

interface RunningParts {
  status: DaemonStatus;
  auditExpiry: NodeJS.Timeout;
  starter: PlatformStarter;
  core: BatonCore;
  handover: RunningHandover;
  /** The ops listener, once it started. */
  ops(): RunningOps | undefined;
  platforms: StartedPlatforms;
  log: Logger;
  /** Closes the event log and frees the data dir. */
  closeLog(): Promise<void>;
}

/**
 * Stops a daemon: no platform starts any more, the core drains (running turns get `graceMs`,
 * default shutdown_grace), then the handover service, the ops listener and the platforms stop, and
 * the event log closes last. A part that does not stop cleanly is logged; the rest still stop.
 */
async function stopDaemon(parts: RunningParts, graceMs = parts.status.current.config.shutdown_grace): Promise<void> {
  const { status, core, log } = parts;
  status.state = "draining";
  clearInterval(parts.auditExpiry);
  await parts.starter.stop();
  await core.shutdown(graceMs);
  await parts.handover.stop().catch((error: unknown) => log.warn({ err: error }, "handover service did not stop cleanly"));
  const ops = parts.ops();
  await ops?.stop().catch((error: unknown) => log.warn({ err: error }, "ops listener did not stop cleanly"));
  await Promise.all(parts.platforms.running.map((a) => a.stop().catch((error: unknown) => log.warn({ platform: a.name, err: error }, "platform did not stop cleanly"))));
  await parts.closeLog();
}

/** Opens the data dir (locked against a second daemon) and replays the thread log into the registry. */
async function openThreads(options: DaemonOptions): Promise<{ registry: ThreadRegistry; store: EventLogStore; releaseLock: () => void }> {
  const { dataDir, log } = options;
  ensureDataDir(dataDir);
  const releaseLock = acquireDataDirLock(dataDir);
  const store = options.store ?? new JsonlEventStore(join(dataDir, "threads", "events.jsonl"));
  const started = Date.now();
  const { registry, report } = await orUndo(
    () => ThreadRegistry.open(store, { auditRetentionMs: options.loaded.config.audit.keep }),
    async () => releaseLock(),
  );
  for (const skip of report.skipped) log.warn({ line: skip.line }, `event log: skipped a line (${skip.reason})`);
  log.info({ events: report.events, preread: report.preread, threads: registry.openThreads().length, ms: Date.now() - started, compacted: report.compacted }, "thread registry replayed");
  return { registry, store, releaseLock };
}

/** `step`'s result; when it fails, `undo` runs before the error goes on. */
async function orUndo<T>(step: () => Promise<T>, undo: () => Promise<void>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    await undo();
    throw error;
  }
}

/** Gives every agent Baton starts the MCP endpoint (with a token for its own thread), also through the configured machines. */
function connectHandover(core: BatonCore, handover: RunningHandover, dataDir: string): void {
  core.handover = handover.service;
  core.mcp.connect({ localUrl: handover.mcpUrl, tokens: handover.hostTokens });
  // Terminals on the configured machines reach this daemon through tunnels (or a listener) published there.
  core.machines.serveHandover({ localUrl: handover.mcpUrl, tokenFor: handover.machineToken, owner: daemonOwnerId(dataDir) });
}

/** Drops the audit events older than audit.keep (as it is now) once a day. */
function expireAuditDaily(registry: ThreadRegistry, status: DaemonStatus, log: Logger): NodeJS.Timeout {
  return setInterval(() => {
    registry
      .expireAudit(status.current.config.audit.keep)
      .then((dropped) => dropped > 0 && log.info({ dropped }, "audit: dropped events older than audit.keep"))
      .catch((error: unknown) => log.warn({ err: error }, "audit: could not drop old events; the next try is in a day"));
  }, AUDIT_EXPIRY_EVERY_MS).unref();
}

/** The platforms added to the core (`adapters`), those serving now (`running`) and the health of each. */
interface StartedPlatforms {
  adapters: PlatformAdapter[];
  running: PlatformAdapter[];
  health: PlatformHealth[];
}

interface PlatformStartDeps {
  options: DaemonOptions;
  core: BatonCore;
  recorder: MetricsRecorder;
  starter: PlatformStarter;
  platforms: StartedPlatforms;
}

/** Starts each platform against a counted core; one that starts serving is stopped with the daemon and announced. */
function platformStarter(options: DaemonOptions, core: BatonCore, recorder: MetricsRecorder, platforms: StartedPlatforms): PlatformStarter {
  const { log } = options;
  return new PlatformStarter({
    log,
    coreFor: (adapter) => meteredCore(core, adapter.name, recorder),
    started: (adapter, info) => {
      platforms.running.push(adapter);
      log.info({ platform: adapter.name }, info.description);
      options.onPlatformStarted?.({ ...info, name: adapter.name });
    },
    degraded: (adapter, problem) => options.onPlatformDegraded?.({ name: adapter.name, problem }),
  });
}

/**
 * Platforms start side by side: one's SDK loads while another waits for its first API answer.
 * One that cannot be reached is retried in the background (PlatformStarter); one that refuses
 * Baton stops the start.
 */
async function startPlatforms({ options, core, recorder, starter, platforms }: PlatformStartDeps): Promise<void> {
  const env = { dataDir: options.dataDir, cursors: options.cursors, snapshots: options.snapshots };
  // The core sees each adapter counted (messages out, errors by reason, reachability); the adapter sees a core that counts what comes in.
  const add = (adapter: PlatformAdapter, settings: Parameters<BatonCore["addAdapter"]>[1]): PlatformHealth => {
    const h: PlatformHealth = { name: adapter.name, kind: adapter.kind, state: "starting", connected: false };
    platforms.health.push(h);
    core.addAdapter(
      meteredAdapter(adapter, recorder, h, () => platforms.running.includes(adapter)),
      settings,
    );
    platforms.adapters.push(adapter);
    return h;
  };
  const start = (adapter: PlatformAdapter, h: PlatformHealth) => starter.start(adapter, h);
  const results = await Promise.allSettled([
    ...options.loaded.platforms.map(async (p) => {
      const descriptor = PLATFORM_KINDS[p.kind];
      registerSecretValues(descriptor.secrets(p.config));
      const adapter = await (await descriptor.load())(p.name, p.config, env);
      await start(adapter, add(adapter, descriptor.common(p.config)));
    }),
    ...(options.extraAdapters ?? []).map((extra) => {
      const { adapter, settings } = "adapter" in extra ? extra : { adapter: extra, settings: {} };
      return start(adapter, add(adapter, settings));
    }),
  ]);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
}

/**
 * Prepares what the first message needs once every platform is serving, in the idle moment after
 * start-up, so neither start-up nor the first answer waits for it: the spare agent process first
 * (agents.spare_host; it boots on another core while Baton loads its ACP SDK), then the markdown parser.
 */
function warmUp(log: Logger, prepareSpare: () => void): void {
  setImmediate(() => {
    prepareSpare();
    loadMarkdown().catch((error: unknown) => log.warn({ err: error }, "could not load the markdown parser ahead of the first message"));
  });
}

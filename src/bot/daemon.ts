// Wires a running Baton: data dir → event log → registry replay → core → platforms. `bot/` is the
// only place that knows every part; the parts know only their small interfaces.
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import type { CommonPlatformSettings, PlatformAdapter, StartInfo } from "../platforms/contract.js";
import { registerSecretValues } from "../kernel/secrets.js";
import { PLATFORM_KINDS } from "../platforms/registry.js";
import { JsonlEventStore, type EventLogStore } from "../threads/store.js";
import { ThreadRegistry } from "../threads/registry.js";
import type { LoadedConfig } from "../config/load.js";
import { BatonCore } from "../core/core.js";
import { startHandover, type RunningHandover } from "../handover/index.js";
import type { Logger } from "../kernel/log.js";
import { acquireDataDirLock } from "./lock.js";

export const DATA_DIR_MODE = 0o700;

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
  /** Called once per started platform with its one-line description. */
  onPlatformStarted?(info: StartInfo & { name: string }): void;
}

export interface Daemon {
  core: BatonCore;
  adapters: PlatformAdapter[];
  stop(): Promise<void>;
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
  ensureDataDir(dataDir);
  const releaseLock = acquireDataDirLock(dataDir);
  const store = options.store ?? new JsonlEventStore(join(dataDir, "threads", "events.jsonl"));
  const started = Date.now();
  let opened: Awaited<ReturnType<typeof ThreadRegistry.open>>;
  try {
    opened = await ThreadRegistry.open(store);
  } catch (error) {
    releaseLock();
    throw error;
  }
  const { registry, report } = opened;
  for (const skip of report.skipped) log.warn({ line: skip.line }, `event log: skipped a line (${skip.reason})`);
  log.info({ events: report.events, threads: registry.openThreads().length, ms: Date.now() - started }, "thread registry replayed");

  const core = new BatonCore({ config: loaded.config, dataDir, registry, log, env: options.env, cwd: options.cwd });
  // Subagents that were running when the last daemon stopped resume when their thread's agent starts again.
  await core.subagents.markInterrupted();
  // Pickup codes, /pickup and the MCP endpoint for terminal agents (src/handover/).
  let handover: RunningHandover;
  try {
    handover = await startHandover({ core, config: loaded.config, dataDir, log });
  } catch (error) {
    await store.close();
    releaseLock();
    throw error;
  }
  core.handover = handover.service;
  // Every agent Baton starts gets the MCP endpoint, with a token for its own thread.
  core.mcp.connect({ localUrl: handover.mcpUrl, tokens: handover.hostTokens });
  // Terminals on the configured machines reach this daemon through tunnels (or a listener) published there.
  core.machines.serveHandover({ localUrl: handover.mcpUrl, tokenFor: handover.machineToken, owner: daemonOwnerId(dataDir) });
  const adapters: PlatformAdapter[] = [];
  const running: PlatformAdapter[] = [];
  const stop = async () => {
    await core.shutdown();
    await handover.stop().catch((error: unknown) => log.warn({ err: error }, "handover service did not stop cleanly"));
    await Promise.all(running.map((a) => a.stop().catch((error: unknown) => log.warn({ platform: a.name, err: error }, "platform did not stop cleanly"))));
    await store.close();
    releaseLock();
  };
  try {
    const env = { dataDir };
    for (const p of loaded.platforms) {
      const descriptor = PLATFORM_KINDS[p.kind];
      registerSecretValues(descriptor.secrets(p.config));
      const adapter = await (await descriptor.load())(p.name, p.config, env);
      core.addAdapter(adapter, descriptor.common(p.config));
      adapters.push(adapter);
    }
    for (const extra of options.extraAdapters ?? []) {
      const { adapter, settings } = "adapter" in extra ? extra : { adapter: extra, settings: {} };
      core.addAdapter(adapter, settings);
      adapters.push(adapter);
    }
    for (const adapter of adapters) {
      const info = await adapter.start(core);
      running.push(adapter);
      log.info({ platform: adapter.name }, info.description);
      options.onPlatformStarted?.({ ...info, name: adapter.name });
    }
  } catch (error) {
    // Whatever started (handover, platforms) is stopped again: a failed start leaves nothing running.
    await stop();
    throw error;
  }
  return { core, adapters, stop };
}

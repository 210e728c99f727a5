// What a running daemon is now (its config, state, platforms' health, last reload) as `baton
// status` and /metrics read it, and a reload that changes it (SIGHUP, `baton reload`).
import type { LoadedConfig } from "../config/load.js";
import type { BatonCore } from "../core/core.js";
import { userMessageOf } from "../kernel/errors.js";
import { batonVersion } from "../kernel/install.js";
import type { Logger } from "../kernel/log.js";
import type { ClusterState, DaemonSnapshot, PlatformHealth, ReloadReport } from "../ops/snapshot.js";
import { planReload } from "./reload.js";

/** What the daemon is now: its config, its state, its platforms' health, the last reload. */
export interface DaemonStatus {
  current: LoadedConfig;
  state: DaemonSnapshot["state"];
  health: PlatformHealth[];
  startedAt: string;
  lastReload?: ReloadReport;
}

export function snapshotOf(status: DaemonStatus, core: BatonCore, cluster: (() => ClusterState) | undefined): DaemonSnapshot {
  return {
    state: status.state,
    version: batonVersion(),
    pid: process.pid,
    startedAt: status.startedAt,
    platforms: status.health.map((h) => ({ ...h })),
    maxLiveHosts: status.current.config.agents.max_live_hosts,
    ...core.counts(),
    spareHost: core.supervisor.spareState(),
    lastReload: status.lastReload,
    cluster: cluster?.(),
  };
}

/** Re-reads the config and applies what can change live (see Daemon.reload); the report is kept for status. */
export function reloadDaemon(status: DaemonStatus, core: BatonCore, log: Logger, load: () => LoadedConfig): ReloadReport {
  const failed = (error: unknown): ReloadReport => (status.lastReload = { at: new Date().toISOString(), ok: false, applied: [], restartNeeded: [], error: userMessageOf(error) });
  let next: LoadedConfig;
  try {
    next = load();
  } catch (error) {
    return failed(error);
  }
  const plan = planReload(status.current, next);
  try {
    core.reconfigure(plan.running.config);
  } catch (error) {
    return failed(error);
  }
  status.current = plan.running;
  log.level = status.current.config.log.level;
  status.lastReload = { at: new Date().toISOString(), ok: true, applied: plan.applied, restartNeeded: plan.restartNeeded };
  return status.lastReload;
}

// What the daemon tells the ops listener about itself, read at each request: /healthz, /status
// and the gauges of /metrics. No secrets: names, counts and states only.

/**
 * - `starting`: its first connection is being made;
 * - `connected`: it serves;
 * - `degraded`: it cannot reach the platform (at start: retried with backoff until it connects;
 *   later: its last call did not get through);
 * - `failed`: the platform refused it (a credential revoked while Baton retried); not retried.
 */
export type PlatformState = "starting" | "connected" | "degraded" | "failed";
export const PLATFORM_STATES: readonly PlatformState[] = ["starting", "connected", "degraded", "failed"];

export interface PlatformHealth {
  name: string;
  kind: string;
  state: PlatformState;
  /** `state === "connected"`, for readers of the first version of /status. */
  connected: boolean;
  /** Why it is not connected (a short reason, never a token). */
  detail?: string;
  /** Connection attempts made at start, while it is retried. */
  attempts?: number;
  /** When the next attempt is due (ISO time), while it is retried. */
  nextAttemptAt?: string;
}

export interface ReloadReport {
  at: string;
  ok: boolean;
  /** Sections applied live. */
  applied: string[];
  /** Sections that changed but take effect only after a restart. */
  restartNeeded: string[];
  error?: string;
}

/** With store.url: this instance's part among several on one PostgreSQL. */
export interface ClusterState {
  role: "leader" | "standby";
  /** This instance's id (instance.id). */
  instance: string;
  /** The leading instance's id, as last read from the database. */
  leader: string | null;
  /** The leadership epoch (incremented at each takeover). */
  epoch: number;
  /** How many times this instance has taken the lead. */
  takeovers: number;
  /** Instances seen recently (leader and standbys). */
  instances: Array<{ id: string; role: string; version: string }>;
}

export interface DaemonSnapshot {
  /** "standby": another instance leads (store.url); this one serves no platform until it takes over. */
  state: "starting" | "running" | "draining" | "standby";
  version: string;
  pid: number;
  startedAt: string;
  platforms: PlatformHealth[];
  liveHosts: number;
  maxLiveHosts: number;
  /** The agent process started ahead for the next new thread (agents.spare_host), while there is one; it counts against maxLiveHosts. */
  spareHost?: { agent: string; pid?: number; state: "starting" | "ready"; session?: string };
  turnsRunning: number;
  queuedPrompts: number;
  pendingApprovals: number;
  openThreads: number;
  lastReload?: ReloadReport;
  cluster?: ClusterState;
}

// Several instances over one PostgreSQL (store.url): this instance stands by until it takes the
// lead, then runs the whole daemon (platforms, agents) with an event log fenced by its epoch. When
// the lead is lost (a newer epoch, the database out of reach for a lease), it stops its platforms
// and agents at once (running turns get no grace) and stands by again; SIGTERM drains and hands
// the lead over. Either way the lock goes only once the daemon has stopped (see LeaderLease.lose).
import { hostname } from "node:os";
import { createHash } from "node:crypto";
import type { LoadedConfig } from "../config/load.js";
import { DEFAULT_OPS_LISTEN } from "../config/schema.js";
import { userMessageOf } from "../kernel/errors.js";
import { batonVersion } from "../kernel/install.js";
import { MetricsRecorder } from "../ops/recorder.js";
import { startOps, type RunningOps } from "../ops/server.js";
import type { RunningTurnsStore } from "../core/cut-turns.js";
import type { ClusterState, DaemonSnapshot } from "../ops/snapshot.js";
import { postgresHandoverKv } from "../store/postgres/codes.js";
import { PostgresCursors } from "../store/postgres/cursors.js";
import { PostgresEventStore } from "../store/postgres/event-store.js";
import { EventLogFollower } from "../store/postgres/follower.js";
import { PostgresSnapshots } from "../store/postgres/snapshots.js";
import { openPostgresState, shownUrl, type PostgresState } from "../store/postgres/index.js";
import { LeaderLease, readLeadership } from "../store/postgres/lease.js";
import { ensureDataDir, startDaemon, type Daemon, type DaemonOptions } from "./daemon.js";

/** `instance.id`, else the host name and a short hash of the data dir (two instances on one host differ). */
export function instanceIdOf(loaded: LoadedConfig, dataDir: string): string {
  return loaded.config.instance.id ?? `${hostname()}-${createHash("sha256").update(dataDir).digest("hex").slice(0, 6)}`;
}

export interface ClusterOptions extends Omit<DaemonOptions, "store" | "cluster" | "cursors" | "snapshots" | "runningTurns" | "handoverKv"> {
  /** Called each time this instance starts serving (after a takeover too). */
  onLeading?(daemon: Daemon, epoch: number): void;
  /** Called each time this instance stands by again. */
  onStandby?(): void;
}

export interface RunningCluster {
  /** The daemon while this instance leads. */
  daemon(): Daemon | undefined;
  /** Drains and hands the lead over, then stands by again (`baton step-down`). */
  stepDown(): Promise<void>;
  /** Drains (when leading), hands the lead over and ends. */
  stop(): Promise<void>;
}

export async function startCluster(options: ClusterOptions): Promise<RunningCluster> {
  const { loaded, dataDir, log } = options;
  const store = loaded.config.store;
  const url = store.url!;
  ensureDataDir(dataDir);
  const db = await openPostgresState(url, (error) => log.warn({ err: error.message }, "PostgreSQL: an idle connection failed; the next query opens another"));
  if (db.migrated.length > 0) log.info({ versions: db.migrated }, "PostgreSQL: schema migrated");
  const id = instanceIdOf(loaded, dataDir);
  const state: ClusterState = { role: "standby", instance: id, leader: null, epoch: 0, takeovers: 0, instances: [] };
  const lease = new LeaderLease(url, id, { renewMs: store.renew_ms, leaseMs: store.lease_ms }, batonVersion());
  // A standby keeps reading the event log, so a takeover replays only what came since.
  const eventLog = new EventLogFollower(db.pool);
  const readLog = () => void eventLog.follow().catch((error: Error) => log.debug({ err: error.message }, "standing by: could not read the event log; trying again"));
  const follow = setInterval(() => {
    void refresh(db, state, store.lease_ms * 3);
    if (state.role === "standby") readLog();
  }, store.renew_ms);
  await refresh(db, state, store.lease_ms * 3);
  readLog();
  log.info({ instance: id, database: shownUrl(url), leader: state.leader, epoch: state.epoch }, "standing by: another instance leads, or this one will once it takes the lead");
  let daemon: Daemon | undefined;
  let standbyOps: RunningOps | undefined = await startStandbyOps(options, state);
  let ending = false;
  const campaign = new AbortController();
  const STEP_DOWN = "step-down";
  let requestStepDown: () => void = () => undefined;
  const pendingStepDown = () => new Promise<string>((resolve) => (requestStepDown = () => resolve(STEP_DOWN)));
  let stepDownRequested = pendingStepDown();

  const serve = async (): Promise<void> => {
    while (!ending) {
      let epoch: number;
      try {
        epoch = await lease.campaign(campaign.signal);
      } catch {
        return; // stopped
      }
      Object.assign(state, { role: "leader", leader: id, epoch, takeovers: state.takeovers + 1 });
      log.info({ instance: id, epoch }, "leading: connecting the platforms");
      await standbyOps?.stop();
      standbyOps = undefined;
      const lost = new Promise<string>((resolve) => lease.onLost(resolve));
      // Every write of this lead carries its epoch, also while it drains after losing the lease: the
      // database alone decides (it refuses the epoch once another instance has taken over, and a
      // takeover waits for a write in flight). So a prompt kept during that drain is in the log for
      // the next leader, as after a SIGTERM hand-over, unless another instance already leads.
      const leadEpoch = () => epoch;
      try {
        const cursors = new PostgresCursors(db.pool, leadEpoch, (key, error) => log.warn({ key, err: userMessageOf(error) }, "could not save a platform's read position"));
        const snapshots = new PostgresSnapshots(db.pool, leadEpoch, (key, error) => log.warn({ key, err: userMessageOf(error) }, "could not save a platform's state; kept for the next try"));
        const runningTurns = await runningTurnsOn(cursors, id);
        const followed = await eventLog.take();
        daemon = await startDaemon({
          ...options,
          store: new PostgresEventStore(db.pool, leadEpoch, followed),
          cursors,
          snapshots,
          runningTurns,
          handoverKv: postgresHandoverKv(db.pool),
          cluster: () => state,
        });
      } catch (error) {
        log.error({ err: userMessageOf(error) }, "could not start serving after taking the lead; handing it over");
        await lease.stepDown();
        throw error;
      }
      options.onLeading?.(daemon, epoch);
      const reason = await Promise.race([lost, stepDownRequested]);
      if (reason !== STEP_DOWN) log.error({ reason }, "lost the lead: stopping platforms and agents now; standing by");
      await daemon.stop(reason === STEP_DOWN ? undefined : 0).catch((error: unknown) => log.warn({ err: error }, "stopping after losing the lead"));
      daemon = undefined;
      // Only now, drained, is the lock released (a lost lead's session too, if it still has one).
      await lease.stepDown();
      state.role = "standby";
      options.onStandby?.();
      stepDownRequested = pendingStepDown();
      if (!ending) standbyOps = await startStandbyOps(options, state);
      // Handed over: another instance takes the lead before this one tries again (if none does
      // within two leases, there is none to take it, and this one leads again).
      if (reason === STEP_DOWN && !ending) await otherLeader(db, epoch, 2 * store.lease_ms, store.renew_ms);
    }
  };
  const serving = serve();
  serving.catch(() => undefined);

  return {
    daemon: () => daemon,
    async stepDown() {
      if (!daemon) return;
      requestStepDown();
      while (state.role === "leader") await new Promise((resolve) => setTimeout(resolve, 50));
    },
    async stop() {
      ending = true;
      campaign.abort();
      if (daemon) {
        requestStepDown();
        await serving;
      }
      clearInterval(follow);
      await lease.close();
      await standbyOps?.stop();
      await db.close();
    },
  };
}

const RUNNING_TURNS_KEY = "core:running-turns";

/** The running turns kept in the database: the last leader's are marked cut off by this one. */
async function runningTurnsOn(cursors: PostgresCursors, instance: string): Promise<RunningTurnsStore> {
  let left: { instance?: string; threads?: string[] } = {};
  try {
    left = JSON.parse((await cursors.get(RUNNING_TURNS_KEY)) ?? "{}");
  } catch {
    // unreadable: nothing to mark
  }
  return {
    leftOver: { threads: Array.isArray(left.threads) ? left.threads : [], otherInstance: left.instance !== undefined && left.instance !== instance },
    save: (threads) => cursors.write(RUNNING_TURNS_KEY, JSON.stringify({ instance, threads })),
  };
}

/** Resolves once an epoch newer than `epoch` leads, or after `timeoutMs`. */
async function otherLeader(db: PostgresState, epoch: number, timeoutMs: number, everyMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const now = await readLeadership(db.pool).catch(() => undefined);
    if (now && now.epoch > epoch) return;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

async function refresh(db: PostgresState, state: ClusterState, recentMs: number): Promise<void> {
  try {
    const now = await readLeadership(db.pool, recentMs);
    if (state.role === "standby") Object.assign(state, { leader: now.leader, epoch: now.epoch });
    state.instances = now.instances;
  } catch {
    // The database is out of reach: the lease notices; status shows what was last known.
  }
}

/** A standby answers /healthz, /status and /metrics too, saying it stands by. */
function startStandbyOps(options: ClusterOptions, cluster: ClusterState): Promise<RunningOps> {
  const { loaded, dataDir, log } = options;
  const startedAt = new Date().toISOString();
  const snapshot = (): DaemonSnapshot => ({
    state: "standby",
    version: batonVersion(),
    pid: process.pid,
    startedAt,
    platforms: [],
    liveHosts: 0,
    maxLiveHosts: loaded.config.agents.max_live_hosts,
    turnsRunning: 0,
    queuedPrompts: 0,
    pendingApprovals: 0,
    openThreads: 0,
    cluster: { ...cluster },
  });
  return startOps({
    listen: loaded.config.ops.listen ?? DEFAULT_OPS_LISTEN,
    isDefault: loaded.config.ops.listen === undefined,
    token: loaded.config.ops.token,
    dataDir,
    recorder: new MetricsRecorder(),
    snapshot,
    log,
  });
}

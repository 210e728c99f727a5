// Several instances over one PostgreSQL (store.url): this instance stands by until it takes the
// lead, then runs the whole daemon (platforms, agents) with an event log fenced by its epoch
// (leading.ts). When the lead is lost (a newer epoch, the database out of reach for a lease), it
// stops its platforms and agents at once (running turns get no grace) and stands by again; SIGTERM
// drains and hands the lead over. Either way the lock goes only once the daemon has stopped (see
// LeaderLease.lose).
import { hostname } from "node:os";
import { createHash } from "node:crypto";
import type { LoadedConfig } from "../config/load.js";
import { DEFAULT_OPS_LISTEN } from "../config/schema.js";
import { userMessageOf } from "../kernel/errors.js";
import { batonVersion } from "../kernel/install.js";
import { MetricsRecorder } from "../ops/recorder.js";
import { startOps, type RunningOps } from "../ops/server.js";
import type { ClusterState, DaemonSnapshot } from "../ops/snapshot.js";
import { EventLogFollower } from "../store/postgres/follower.js";
import { databaseAnswers, openPostgresState, shownUrl, type PostgresState } from "../store/postgres/index.js";
import { LeaderLease, readLeadership } from "../store/postgres/lease.js";
import { ensureDataDir, type Daemon } from "./daemon.js";
import { startLeadingDaemon, type Lead, type LeadOptions } from "./leading.js";

/** `instance.id`, else the host name and a short hash of the data dir (two instances on one host differ). */
export function instanceIdOf(loaded: LoadedConfig, dataDir: string): string {
  return loaded.config.instance.id ?? `${hostname()}-${createHash("sha256").update(dataDir).digest("hex").slice(0, 6)}`;
}

export interface ClusterOptions extends LeadOptions {
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
  // A query that has waited two leases could no longer count for a leader cut off meanwhile (a
  // standby takes over a lease after the lease ran out): it fails then, so a cut-off leader's
  // drain ends and its platforms stop, instead of waiting on a line that never answers.
  const db = await openPostgresState(url, (error) => log.warn({ err: error.message }, "PostgreSQL: an idle connection failed; the next query opens another"), 2 * store.lease_ms);
  if (db.migrated.length > 0) log.info({ versions: db.migrated }, "PostgreSQL: schema migrated");
  const instance = instanceIdOf(loaded, dataDir);
  const state: ClusterState = { role: "standby", instance, leader: null, epoch: 0, takeovers: 0, instances: [] };
  const lease = new LeaderLease(url, instance, { renewMs: store.renew_ms, leaseMs: store.lease_ms }, batonVersion());
  // A standby keeps reading the event log, so a takeover replays only what came since.
  const eventLog = new EventLogFollower(db.pool);
  const follow = await followWhileStandingBy(options, db, state, eventLog);
  log.info({ instance, database: shownUrl(url), leader: state.leader, epoch: state.epoch }, "standing by: another instance leads, or this one will once it takes the lead");
  const member = new ClusterMember(options, { db, lease, state, eventLog, instance, follow }, await startStandbyOps(options, state));
  return { daemon: () => member.daemon, stepDown: () => member.stepDown(), stop: () => member.stop() };
}

/** Every renew_ms: who leads (for status), and, while standing by, the event log's new rows. */
async function followWhileStandingBy(options: ClusterOptions, db: PostgresState, state: ClusterState, eventLog: EventLogFollower): Promise<NodeJS.Timeout> {
  const { store } = options.loaded.config;
  const readLog = () => void eventLog.follow().catch((error: Error) => options.log.debug({ err: error.message }, "standing by: could not read the event log; trying again"));
  const follow = setInterval(() => {
    void refresh(db, state, store.lease_ms * 3);
    if (state.role === "standby") readLog();
  }, store.renew_ms);
  await refresh(db, state, store.lease_ms * 3);
  readLog();
  return follow;
}

const STEP_DOWN = "step-down";

interface Member extends Omit<Lead, "epoch" | "cutOff"> {
  lease: LeaderLease;
  /** The standby's reading (followWhileStandingBy), until stop. */
  follow: NodeJS.Timeout;
}

/** This instance's part: it campaigns for the lead, serves while it leads, and stands by again after. */
class ClusterMember {
  daemon?: Daemon;
  private ending = false;
  private readonly campaign = new AbortController();
  private requestStepDown: () => void = () => undefined;
  private stepDownRequested = this.pendingStepDown();
  private readonly serving: Promise<void>;

  constructor(
    private readonly options: ClusterOptions,
    private readonly member: Member,
    private standbyOps: RunningOps | undefined,
  ) {
    this.serving = this.serve();
    this.serving.catch(() => undefined);
  }

  async stepDown(): Promise<void> {
    if (!this.daemon) return;
    this.requestStepDown();
    while (this.member.state.role === "leader") await new Promise((resolve) => setTimeout(resolve, 50));
  }

  async stop(): Promise<void> {
    this.ending = true;
    this.campaign.abort();
    if (this.daemon) {
      this.requestStepDown();
      await this.serving;
    }
    clearInterval(this.member.follow);
    await this.member.lease.close();
    await this.standbyOps?.stop();
    await this.member.db.close();
  }

  private pendingStepDown(): Promise<string> {
    return new Promise<string>((resolve) => (this.requestStepDown = () => resolve(STEP_DOWN)));
  }

  private async serve(): Promise<void> {
    const { lease, db } = this.member;
    const { store } = this.options.loaded.config;
    while (!this.ending) {
      let epoch: number;
      try {
        epoch = await lease.campaign(this.campaign.signal);
      } catch {
        return; // stopped
      }
      const reason = await this.lead(epoch);
      // Handed over: another instance takes the lead before this one tries again (if none does
      // within two leases, there is none to take it, and this one leads again).
      if (reason === STEP_DOWN && !this.ending) await otherLeader(db, epoch, 2 * store.lease_ms, store.renew_ms);
    }
  }

  /** One lead, from taking it to standing by again; gives why it ended (a step-down, or why the lease was lost). */
  private async lead(epoch: number): Promise<string> {
    const { options } = this;
    const { log } = options;
    const { lease, state, instance } = this.member;
    Object.assign(state, { role: "leader", leader: instance, epoch, takeovers: state.takeovers + 1 });
    log.info({ instance, epoch }, "leading: connecting the platforms");
    await this.standbyOps?.stop();
    this.standbyOps = undefined;
    const lost = new Promise<string>((resolve) => lease.onLost(resolve));
    let cutOff = false;
    let daemon: Daemon;
    try {
      daemon = this.daemon = await startLeadingDaemon(options, { ...this.member, epoch, cutOff: () => cutOff });
    } catch (error) {
      log.error({ err: userMessageOf(error) }, "could not start serving after taking the lead; handing it over");
      await lease.stepDown();
      throw error;
    }
    options.onLeading?.(daemon, epoch);
    const reason = await Promise.race([lost, this.stepDownRequested]);
    if (reason !== STEP_DOWN) {
      log.error({ reason }, "lost the lead: stopping platforms and agents now; standing by");
      // Cut from the database, or only slowed down (then what the drain writes still counts)?
      const { url, lease_ms } = options.loaded.config.store;
      void databaseAnswers(url!, lease_ms / 2).then((answers) => {
        if (answers) return;
        cutOff = true;
        log.warn("the database is out of reach: the drain writes nothing more");
      });
    }
    await daemon.stop(reason === STEP_DOWN ? undefined : 0).catch((error: unknown) => log.warn({ err: error }, "stopping after losing the lead"));
    this.daemon = undefined;
    // Only now, drained, is the lock released (a lost lead's session too, if it still has one).
    await lease.stepDown();
    state.role = "standby";
    options.onStandby?.();
    this.stepDownRequested = this.pendingStepDown();
    if (!this.ending) this.standbyOps = await startStandbyOps(options, state);
    return reason;
  }
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

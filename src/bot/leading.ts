// What this instance serves while it leads the cluster: the whole daemon, on the shared database,
// every write fenced by the lead's epoch. The database alone decides whether a write lands (it
// refuses the epoch once another instance has taken over, and a takeover waits for a write in
// flight), also while this lead drains after losing its lease: so a prompt kept during that drain
// is in the log for the next leader, as after a SIGTERM hand-over, unless another instance leads.
import type { RunningTurnsStore } from "../core/cut-turns.js";
import { userMessageOf } from "../kernel/errors.js";
import type { ClusterState } from "../ops/snapshot.js";
import { postgresHandoverKv } from "../store/postgres/codes.js";
import { PostgresCursors } from "../store/postgres/cursors.js";
import { PostgresEventStore } from "../store/postgres/event-store.js";
import type { EventLogFollower } from "../store/postgres/follower.js";
import type { PostgresState } from "../store/postgres/index.js";
import { PostgresSnapshots } from "../store/postgres/snapshots.js";
import { startDaemon, type Daemon, type DaemonOptions } from "./daemon.js";

/** A daemon's options as the cluster gets them: the stores are the lead's own. */
export type LeadOptions = Omit<DaemonOptions, "store" | "cluster" | "cursors" | "snapshots" | "runningTurns" | "handoverKv">;

export interface Lead {
  db: PostgresState;
  /** The event log as a standby read it: the daemon replays from it and reads only the tail. */
  eventLog: EventLogFollower;
  instance: string;
  epoch: number;
  state: ClusterState;
  /** True once this lead was lost and the database found out of reach: its writes then fail at once. */
  cutOff(): boolean;
}

/** Starts the daemon for this lead. */
export async function startLeadingDaemon(options: LeadOptions, { db, eventLog, instance, epoch, state, cutOff }: Lead): Promise<Daemon> {
  const { log } = options;
  // A write that waits on a silent line gives up only after two leases: once the database is known
  // out of reach, the rest of a lost lead's drain fails at once, so its platforms stop sooner.
  const leadEpoch = () => {
    if (cutOff()) throw new Error("the database is out of reach and this instance lost the lead: nothing more is written");
    return epoch;
  };
  const cursors = new PostgresCursors(db.pool, leadEpoch, (key, error) => log.warn({ key, err: userMessageOf(error) }, "could not save a platform's read position"));
  const snapshots = new PostgresSnapshots(db.pool, leadEpoch, (key, error) => log.warn({ key, err: userMessageOf(error) }, "could not save a platform's state; kept for the next try"));
  const runningTurns = await runningTurnsOn(cursors, instance);
  const followed = await eventLog.take();
  return startDaemon({
    ...options,
    store: new PostgresEventStore(db.pool, leadEpoch, followed),
    cursors,
    snapshots,
    runningTurns,
    handoverKv: postgresHandoverKv(db.pool),
    cluster: () => state,
  });
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

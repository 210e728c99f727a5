// A standby reads the thread event log as the leader appends to it, so that when it takes the lead
// its replay reads only the rows appended since its last read instead of the whole log. It polls
// (the standby wakes every renew_ms anyway): rows after the last one read, in append order. The
// leader's appends are serialised, so rows commit in seq order and none is passed over. A
// compaction deletes rows already read: the row count up to the last one read shows it, and the
// log is then read again from the start.
import type { Pool } from "pg";
import type { ThreadEvent } from "../../threads/events.js";
import { forEachRow, readRow } from "./rows.js";

/** How often a follower checks that no compaction removed rows it read (a count over the key). */
const COMPACTION_CHECK_MS = 10_000;

export interface FollowedLog {
  events: ThreadEvent[];
  skipped: Array<{ line: number; reason: string }>;
  /** The seq of the last row read ("0": none). */
  lastSeq: string;
  /** Rows read (events and skipped ones). */
  rows: number;
}

const emptyLog = (): FollowedLog => ({ events: [], skipped: [], lastSeq: "0", rows: 0 });

/** True when every row read is still in the log (no compaction since). */
export async function unchangedSince(pool: Pool, log: FollowedLog): Promise<boolean> {
  const { rows } = await pool.query<{ n: string }>("SELECT count(*) AS n FROM baton_thread_events WHERE seq <= $1", [log.lastSeq]);
  return Number(rows[0].n) === log.rows;
}

export class EventLogFollower {
  private log = emptyLog();
  private reading?: Promise<void>;
  private checkedAt = 0;

  constructor(private readonly pool: Pool) {}

  /** Reads the rows appended since the last read; one read at a time (a call during one joins it). */
  follow(): Promise<void> {
    this.reading ??= this.readOn().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  /** What has been read so far, for the next leader's replay; the follower starts over empty. */
  async take(): Promise<FollowedLog> {
    await this.reading?.catch(() => undefined);
    const log = this.log;
    this.log = emptyLog();
    this.checkedAt = 0;
    return log;
  }

  private async readOn(): Promise<void> {
    const log = this.log;
    if (log.rows > 0 && Date.now() - this.checkedAt >= COMPACTION_CHECK_MS) {
      if (!(await unchangedSince(this.pool, log))) Object.assign(log, emptyLog());
      this.checkedAt = Date.now();
    }
    await forEachRow(this.pool, log.lastSeq, (row) => {
      const read = readRow(row);
      if ("skip" in read) log.skipped.push(read.skip);
      else log.events.push(read.event);
      log.lastSeq = row.seq;
      log.rows++;
    });
  }
}

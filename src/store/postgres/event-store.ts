// The thread event log on PostgreSQL: the same contract as the JSONL file (append order kept,
// appends durable when they resolve, compaction atomic), for several instances over one database.
// Every write carries the leader's epoch; the database refuses it once a newer leader exists.
import type { Pool } from "pg";
import { parseThreadEvent, type ThreadEvent } from "../../threads/events.js";
import { EventLogWriteError, type EventLogStore, type ReplayReport } from "../../threads/store.js";
import { GroupCommit } from "../../threads/group-commit.js";
import { FencedError, fencedTransaction } from "./fence.js";
import { type FollowedLog, unchangedSince } from "./follower.js";
import { type EventRow, forEachRow, PAGE_ROWS, readRow } from "./rows.js";

export class PostgresEventStore implements EventLogStore {
  /** Serialises appends (group-committed, in the order they were made) and compaction. */
  private readonly commits = new GroupCommit<ThreadEvent>(
    (events) => this.insert(events),
    (error) => (error instanceof FencedError ? error : new EventLogWriteError(error, "database")),
  );
  private closed = false;

  /**
   * `epoch()` is the epoch this instance leads with (it throws when this instance does not lead).
   * `followed`: the log as a standby read it so far; replay then reads only what came after it.
   */
  constructor(
    private readonly pool: Pool,
    private readonly epoch: () => number,
    private followed?: FollowedLog,
  ) {}

  append(events: ThreadEvent[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error("event store is closed"));
    if (events.length === 0) return Promise.resolve();
    return this.commits.append(events);
  }

  async replay(onEvent: (event: ThreadEvent) => void): Promise<ReplayReport> {
    await this.commits.idle();
    const report: ReplayReport = { events: 0, skipped: [] };
    const followed = this.followed;
    this.followed = undefined;
    let after = "0";
    // Unless the leader compacted the part read already (then all of it is read again).
    if (followed && followed.rows > 0 && (await unchangedSince(this.pool, followed))) {
      for (const event of followed.events) onEvent(event);
      report.events = followed.events.length;
      report.skipped.push(...followed.skipped);
      report.preread = followed.rows;
      after = followed.lastSeq;
    }
    await forEachRow(this.pool, after, (row) => {
      const read = readRow(row);
      if ("skip" in read) report.skipped.push(read.skip);
      else {
        report.events++;
        onEvent(read.event);
      }
    });
    return report;
  }

  compact(keep: (event: ThreadEvent) => boolean): Promise<{ kept: number; dropped: number }> {
    return this.commits.exclusive(() =>
      fencedTransaction(this.pool, this.epoch(), async (client) => {
        const drop: string[] = [];
        let kept = 0;
        let after = "0";
        for (;;) {
          const { rows } = await client.query<EventRow>("SELECT seq, id, body FROM baton_thread_events WHERE seq > $1 ORDER BY seq LIMIT $2", [after, PAGE_ROWS]);
          for (const row of rows) {
            const read = parseThreadEvent(row.body);
            if ("event" in read && keep(read.event)) kept++;
            else drop.push(row.id);
          }
          if (rows.length < PAGE_ROWS) break;
          after = rows[rows.length - 1].seq;
        }
        for (let i = 0; i < drop.length; i += PAGE_ROWS) {
          await client.query("DELETE FROM baton_thread_events WHERE id = ANY($1::text[])", [drop.slice(i, i + PAGE_ROWS)]);
        }
        return { kept, dropped: drop.length };
      }),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.commits.idle();
  }

  private insert(events: ThreadEvent[]): Promise<void> {
    const epoch = this.epoch();
    return fencedTransaction(this.pool, epoch, async (client) => {
      await client.query(
        "INSERT INTO baton_thread_events (id, thread, body, epoch) SELECT id, thread, body, $4 FROM unnest($1::text[], $2::text[], $3::jsonb[]) WITH ORDINALITY AS e(id, thread, body, n) ORDER BY n",
        [events.map((e) => e.id), events.map((e) => e.thread), events.map((e) => JSON.stringify(e)), epoch],
      );
    });
  }
}

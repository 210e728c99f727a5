// The thread event log on PostgreSQL: the same contract as the JSONL file (append order kept,
// appends durable when they resolve, compaction atomic), for several instances over one database.
// Every write carries the leader's epoch; the database refuses it once a newer leader exists.
import type { Pool } from "pg";
import { parseThreadEvent, type ThreadEvent } from "../../threads/events.js";
import { EventLogWriteError, type EventLogStore, type ReplayReport } from "../../threads/store.js";
import { GroupCommit } from "../../threads/group-commit.js";
import { FencedError, fencedTransaction } from "./fence.js";

/** Rows read per query by replay and compaction (keyset pages, so memory stays flat). */
const PAGE_ROWS = 5_000;

interface EventRow {
  seq: string;
  id: string;
  body: unknown;
}

export class PostgresEventStore implements EventLogStore {
  /** Serialises appends (group-committed, in the order they were made) and compaction. */
  private readonly commits = new GroupCommit<ThreadEvent>(
    (events) => this.insert(events),
    (error) => (error instanceof FencedError ? error : new EventLogWriteError(error)),
  );
  private closed = false;

  /** `epoch()` is the epoch this instance leads with (it throws when this instance does not lead). */
  constructor(
    private readonly pool: Pool,
    private readonly epoch: () => number,
  ) {}

  append(events: ThreadEvent[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error("event store is closed"));
    if (events.length === 0) return Promise.resolve();
    return this.commits.append(events);
  }

  async replay(onEvent: (event: ThreadEvent) => void): Promise<ReplayReport> {
    await this.commits.idle();
    const report: ReplayReport = { events: 0, skipped: [] };
    await this.forEachRow((row) => {
      const read = parseThreadEvent(row.body);
      if ("problem" in read) report.skipped.push({ line: Number(row.seq), reason: read.problem });
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

  private async forEachRow(onRow: (row: EventRow) => void): Promise<void> {
    let after = "0";
    for (;;) {
      const { rows } = await this.pool.query<EventRow>("SELECT seq, id, body FROM baton_thread_events WHERE seq > $1 ORDER BY seq LIMIT $2", [after, PAGE_ROWS]);
      for (const row of rows) onRow(row);
      if (rows.length < PAGE_ROWS) return;
      after = rows[rows.length - 1].seq;
    }
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

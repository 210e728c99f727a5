// Reading the thread event log's rows: keyset pages in append order, each row a thread event or a
// reason it was skipped (replay and a standby's follower read them the same way).
import type { Pool } from "pg";
import { parseThreadEvent, type ThreadEvent } from "../../threads/events.js";

/** Rows read per query (keyset pages, so memory stays flat). */
export const PAGE_ROWS = 5_000;

export interface EventRow {
  seq: string;
  id: string;
  body: unknown;
}

/** Every row after `after` (a seq), in append order, a page at a time. */
export async function forEachRow(pool: Pool, after: string, onRow: (row: EventRow) => void): Promise<void> {
  for (;;) {
    const { rows } = await pool.query<EventRow>("SELECT seq, id, body FROM baton_thread_events WHERE seq > $1 ORDER BY seq LIMIT $2", [after, PAGE_ROWS]);
    for (const row of rows) onRow(row);
    if (rows.length < PAGE_ROWS) return;
    after = rows[rows.length - 1].seq;
  }
}

export function readRow(row: EventRow): { event: ThreadEvent } | { skip: { line: number; reason: string } } {
  const read = parseThreadEvent(row.body);
  return "problem" in read ? { skip: { line: Number(row.seq), reason: read.problem } } : { event: read.event };
}

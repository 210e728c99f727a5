// `baton audit` with store.url: the audit events in PostgreSQL, read with a client of its own (the
// daemon may be running, or not; nothing is written and no migration is run).
import pg from "pg";
import { ConfigError } from "../../kernel/errors.js";
import { matchesAudit, type AuditEvent, type AuditFilter } from "../../threads/audit.js";
import { parseThreadEvent } from "../../threads/events.js";
import { shownUrl } from "./index.js";

const CONNECT_TIMEOUT_MS = 5_000;
/** Rows read per query (keyset pages, so memory stays flat however long the trail). */
const PAGE_ROWS = 5_000;

export async function readPostgresAudit(url: string, filter: AuditFilter): Promise<AuditEvent[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, application_name: "baton-audit" });
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw new ConfigError(`cannot reach PostgreSQL at ${shownUrl(url)} (store.url): ${(error as Error).message}`, { cause: error });
  }
  try {
    const table = await client.query<{ t: string | null }>("SELECT to_regclass('baton_thread_events') AS t");
    if (!table.rows[0].t) return [];
    // Events are stored with `at` as an ISO time in UTC, so text order is time order.
    const since = filter.since === undefined ? null : new Date(filter.since).toISOString();
    const out: AuditEvent[] = [];
    for (let after = "0"; ; ) {
      const { rows } = await client.query<{ seq: string; body: unknown }>(
        `SELECT seq, body FROM baton_thread_events
          WHERE seq > $1 AND body->>'type' = 'audit' AND ($2::text IS NULL OR body->>'at' >= $2) AND ($3::text IS NULL OR thread = $3)
          ORDER BY seq LIMIT $4`,
        [after, since, filter.thread ?? null, PAGE_ROWS],
      );
      for (const row of rows) {
        const read = parseThreadEvent(row.body);
        if ("event" in read && read.event.type === "audit" && matchesAudit(read.event, filter)) out.push(read.event);
      }
      if (rows.length < PAGE_ROWS) return out;
      after = rows[rows.length - 1].seq;
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}

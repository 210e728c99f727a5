// Baton's state on PostgreSQL (store.url): a pool for the event log and status reads, the schema
// brought up to date at open. The pg client loads only when a store.url is configured.
import type { Pool } from "pg";
import { ConfigError } from "../../kernel/errors.js";
import { migrate } from "./migrations.js";

export interface PostgresState {
  pool: Pool;
  /** Migration versions applied by this open (empty when the schema was current). */
  migrated: number[];
  close(): Promise<void>;
}

/** Whether the database answers within `timeoutMs`, on a connection of its own (the pool's may wait on a silent line). */
export async function databaseAnswers(url: string, timeoutMs: number): Promise<boolean> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs, application_name: "baton-probe" });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    void client.end().catch(() => undefined);
  }
}

/** The URL as it may be shown: no password. */
export function shownUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*)(:[^@/]*)?@/, (_, user: string) => `//${user ? `${user}@` : ""}`);
}

/**
 * `queryTimeoutMs`: a query (or a new connection) not answered within it fails (the database is out
 * of reach), rather than holding up what waits on it, such as a drain that must end before the
 * platforms stop.
 */
export async function openPostgresState(url: string, onError: (error: Error) => void, queryTimeoutMs?: number): Promise<PostgresState> {
  const { default: pg } = await import("pg");
  const pool = new pg.Pool({ connectionString: url, max: 4, keepAlive: true, application_name: "baton", query_timeout: queryTimeoutMs, connectionTimeoutMillis: queryTimeoutMs });
  // An idle connection the server drops must not end the daemon; the next query opens another.
  pool.on("error", onError);
  let migrated: number[];
  try {
    const client = await pool.connect();
    try {
      migrated = await migrate(client);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new ConfigError(`store.url: cannot use PostgreSQL at ${shownUrl(url)}: ${(error as Error).message}`, { cause: error });
  }
  return { pool, migrated, close: () => pool.end() };
}

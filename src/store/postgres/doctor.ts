// `baton doctor` with store.url: the database is reachable, its version, the schema's migrations
// against this Baton's, the leadership, and the clock skew between this machine and the database
// (the lease is timed in the database's clock, but a person reading logs from two machines is not).
import pg from "pg";
import type { PlatformSnapshots } from "../../platforms/contract.js";
import { readLeadership } from "./lease.js";
import { pendingMigrations } from "./migrations.js";
import { shownUrl } from "./index.js";
import { PostgresSnapshots } from "./snapshots.js";

/** Above this, logs of two instances are hard to line up; the lease itself does not care. */
const SKEW_WARN_MS = 2_000;
const CONNECT_TIMEOUT_MS = 5_000;
/** SQLSTATE of a query on a table that does not exist. */
const UNDEFINED_TABLE = "42P01";

export interface DatabaseCheck {
  status: "ok" | "warn" | "fail";
  message: string;
}

export async function checkDatabase(url: string): Promise<DatabaseCheck[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, application_name: "baton-doctor" });
  try {
    await client.connect();
  } catch (error) {
    return [{ status: "fail", message: `cannot reach PostgreSQL at ${shownUrl(url)}: ${(error as Error).message}` }];
  }
  try {
    const sentAt = Date.now();
    const { rows } = await client.query<{ version: string; now: Date }>("SELECT current_setting('server_version') AS version, now() AS now");
    const receivedAt = Date.now();
    const skewMs = Math.round(rows[0].now.getTime() - (sentAt + receivedAt) / 2);
    const checks: DatabaseCheck[] = [{ status: "ok", message: `PostgreSQL ${rows[0].version} at ${shownUrl(url)}` }];
    checks.push({
      status: Math.abs(skewMs) > SKEW_WARN_MS ? "warn" : "ok",
      message: `clock skew with the database: ${skewMs} ms${Math.abs(skewMs) > SKEW_WARN_MS ? " (run NTP on both; logs of several instances will not line up)" : ""}`,
    });
    const pending = await pendingMigrations(client);
    if (pending.newer) checks.push({ status: "fail", message: `the database's schema (version ${pending.newer}) is newer than this Baton's: upgrade this instance` });
    else checks.push({ status: "ok", message: pending.versions.length > 0 ? `schema: ${pending.versions.length} migration(s) to apply at the next start` : "schema current" });
    if (pending.versions.length === 0 && !pending.newer) {
      const lead = await readLeadership(client);
      checks.push({
        status: "ok",
        message: lead.leader ? `leader ${lead.leader} (epoch ${lead.epoch}); instances seen: ${lead.instances.map((i) => `${i.id} (${i.role})`).join(", ") || "none"}` : "no instance has led yet",
      });
    }
    return checks;
  } catch (error) {
    return [{ status: "fail", message: `PostgreSQL at ${shownUrl(url)}: ${(error as Error).message}` }];
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** What the platforms keep on PostgreSQL, for their own checks (Matrix's shared login and keys): read only. */
export function platformSnapshotsReader(url: string): { snapshots: Pick<PlatformSnapshots, "load">; close(): Promise<void> } {
  const pool = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, application_name: "baton-doctor" });
  // An idle connection the server drops is no finding; the next read opens another.
  pool.on("error", () => undefined);
  const reader = new PostgresSnapshots(
    pool,
    () => 0,
    () => undefined,
  );
  // Before the first start of a Baton with this schema (migrations pending), nothing is kept yet.
  const load = (key: string) => reader.load(key).catch((error: { code?: string }) => (error.code === UNDEFINED_TABLE ? undefined : Promise.reject(error)));
  return { snapshots: { load }, close: () => pool.end() };
}

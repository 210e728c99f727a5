// The PostgreSQL schema, versioned in the package. Each migration runs once, in order, inside one
// transaction, while the instance holds MIGRATION_LOCK (several instances starting together take
// turns, and the second finds the work done). Never edit a migration that has shipped: add one.
import type { ClientBase } from "pg";

/** pg_advisory_xact_lock key for migrations ("baton-mi" as a 64-bit number). */
const MIGRATION_LOCK = "7089066341296203113";

interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Fencing: every write to a fenced table runs in a transaction that has declared its writer's epoch
 * (`SELECT set_config('baton.epoch', …, true)`); a statement trigger refuses the write when a newer
 * epoch has been taken since (SQLSTATE BF001). FOR SHARE waits for a takeover in flight, so a write
 * can never slip in between a new leader's epoch and its first read.
 */
const FENCE = `
CREATE FUNCTION baton_fence() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  writer bigint := nullif(current_setting('baton.epoch', true), '')::bigint;
  current_epoch bigint;
BEGIN
  SELECT epoch INTO current_epoch FROM baton_leadership FOR SHARE;
  IF writer IS NULL THEN
    RAISE EXCEPTION 'a write to % carries no leader epoch', TG_TABLE_NAME USING ERRCODE = 'BF001';
  END IF;
  IF writer < current_epoch THEN
    RAISE EXCEPTION 'epoch % was replaced by epoch %: this instance no longer leads', writer, current_epoch USING ERRCODE = 'BF001';
  END IF;
  RETURN NULL;
END $$;
`;

const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: "leadership, thread events, fencing",
    sql: `
CREATE TABLE baton_leadership (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  epoch bigint NOT NULL DEFAULT 0,
  leader text,
  leader_pid integer,
  lease_until timestamptz,
  changed_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO baton_leadership DEFAULT VALUES;
${FENCE}
CREATE TABLE baton_thread_events (
  seq bigserial PRIMARY KEY,
  id text NOT NULL UNIQUE,
  thread text NOT NULL,
  body jsonb NOT NULL,
  epoch bigint NOT NULL
);
CREATE TRIGGER baton_thread_events_fence BEFORE INSERT OR UPDATE OR DELETE ON baton_thread_events
  FOR EACH STATEMENT EXECUTE FUNCTION baton_fence();
`,
  },
  {
    version: 2,
    name: "instances seen",
    // Not fenced: standbys write here too (who is up, for status), never anything a leader decides on.
    sql: `
CREATE TABLE baton_instances (
  id text PRIMARY KEY,
  role text NOT NULL,
  version text NOT NULL,
  seen_at timestamptz NOT NULL DEFAULT now()
);
`,
  },
  {
    version: 3,
    name: "platform cursors",
    sql: `
CREATE TABLE baton_cursors (
  key text PRIMARY KEY,
  value text NOT NULL,
  epoch bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TRIGGER baton_cursors_fence BEFORE INSERT OR UPDATE OR DELETE ON baton_cursors
  FOR EACH STATEMENT EXECUTE FUNCTION baton_fence();
`,
  },
  {
    version: 4,
    name: "pickup codes and rate limits",
    // baton_limits has the shape rate-limiter-flexible's RateLimiterPostgres uses (it is given the table).
    sql: `
CREATE TABLE baton_codes (
  key text PRIMARY KEY,
  value text NOT NULL,
  expires_at timestamptz
);
CREATE TABLE baton_limits (
  key varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);
`,
  },
  {
    version: 5,
    name: "platform snapshots",
    // A platform's state that follows the leader (Matrix's login, its end-to-end crypto store): per
    // key one snapshot and the records appended since, each tagged with the snapshot's generation.
    sql: `
CREATE TABLE baton_platform_snapshots (
  key text PRIMARY KEY,
  generation bigint NOT NULL,
  snapshot bytea NOT NULL,
  epoch bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE baton_platform_records (
  key text NOT NULL,
  seq bigserial,
  generation bigint NOT NULL,
  record bytea NOT NULL,
  epoch bigint NOT NULL,
  PRIMARY KEY (key, seq)
);
CREATE TRIGGER baton_platform_snapshots_fence BEFORE INSERT OR UPDATE OR DELETE ON baton_platform_snapshots
  FOR EACH STATEMENT EXECUTE FUNCTION baton_fence();
CREATE TRIGGER baton_platform_records_fence BEFORE INSERT OR UPDATE OR DELETE ON baton_platform_records
  FOR EACH STATEMENT EXECUTE FUNCTION baton_fence();
`,
  },
  {
    version: 6,
    name: "limit counts as bigint",
    // A person's day of spend is counted in millionths of a dollar: an integer column stopped at
    // $2,147 (the add failed, so nothing more was counted). Rows keep their counts.
    sql: "ALTER TABLE baton_limits ALTER COLUMN points TYPE bigint",
  },
];

const SCHEMA_VERSION = MIGRATIONS.at(-1)?.version ?? 0;

/** What a start would apply, read without a lock or a change; `newer` when the database is ahead of this Baton. */
export async function pendingMigrations(client: ClientBase): Promise<{ versions: number[]; newer?: number }> {
  const table = await client.query("SELECT to_regclass('baton_migrations') AS t");
  if (!table.rows[0].t) return { versions: MIGRATIONS.map((m) => m.version) };
  const done = new Set((await client.query<{ version: number }>("SELECT version FROM baton_migrations")).rows.map((r) => r.version));
  const newer = [...done].filter((v) => v > SCHEMA_VERSION);
  return { versions: MIGRATIONS.filter((m) => !done.has(m.version)).map((m) => m.version), newer: newer.length > 0 ? Math.max(...newer) : undefined };
}

/** Applies the migrations this database has not seen; returns the versions applied now. */
export async function migrate(client: ClientBase): Promise<number[]> {
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await client.query("CREATE TABLE IF NOT EXISTS baton_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())");
    const done = new Set((await client.query<{ version: number }>("SELECT version FROM baton_migrations")).rows.map((r) => r.version));
    const newer = [...done].filter((v) => v > SCHEMA_VERSION);
    if (newer.length > 0) throw new Error(`the database has schema version ${Math.max(...newer)}, newer than this Baton's ${SCHEMA_VERSION}: upgrade this instance`);
    const applied: number[] = [];
    for (const migration of MIGRATIONS) {
      if (done.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query("INSERT INTO baton_migrations (version, name) VALUES ($1, $2)", [migration.version, migration.name]);
      applied.push(migration.version);
    }
    await client.query("COMMIT");
    return applied;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

// Pickup codes and their rate limits on PostgreSQL (store.url), so a code minted through one
// instance is picked up after a takeover and the failed-pickup limits hold across instances. The
// codes table is a Keyv store (Keyv keeps the value's own expiry; the row's expiry only purges);
// a code is consumed by the DELETE that removes its row, so of two concurrent pickups one wins.
import type { CustomTypesConfig, Pool, QueryConfig } from "pg";
import { Keyv } from "keyv";
import RateLimiterPostgres from "rate-limiter-flexible/lib/RateLimiterPostgres.js";
import type { RateLimiterAbstract } from "rate-limiter-flexible";

/** Expired rows are removed at most this often, by whichever instance writes a code. */
const PURGE_EVERY_MS = 60_000;
const NAMESPACE = "baton:pickup";

class PostgresCodeStore {
  private lastPurge = 0;
  constructor(private readonly pool: Pool) {}

  async get(key: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ value: string }>("SELECT value FROM baton_codes WHERE key = $1 AND (expires_at IS NULL OR expires_at > now())", [key]);
    return rows[0]?.value;
  }

  async set(key: string, value: string, ttlMs?: number): Promise<boolean> {
    await this.purge();
    await this.pool.query(
      "INSERT INTO baton_codes (key, value, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3)) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at",
      [key, value, ttlMs === undefined ? null : ttlMs / 1000],
    );
    return true;
  }

  async delete(key: string): Promise<boolean> {
    const { rowCount } = await this.pool.query("DELETE FROM baton_codes WHERE key = $1", [key]);
    return (rowCount ?? 0) > 0;
  }

  async clear(): Promise<void> {
    await this.pool.query("DELETE FROM baton_codes WHERE key LIKE $1", [`${NAMESPACE}:%`]);
  }

  private async purge(): Promise<void> {
    if (Date.now() - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = Date.now();
    await this.pool.query("DELETE FROM baton_codes WHERE expires_at < now()");
  }
}

/** pg's type id of bigint, which it hands back as a string unless told otherwise. */
const INT8_OID = 20;

/** A count read back from bigint as a number: exact up to 2^53, far past any count a limit keeps. */
function countOf(text: string): number {
  const count = Number(text);
  if (!Number.isSafeInteger(count)) throw new Error(`a limit count in PostgreSQL (${text}) is past what Baton counts exactly`);
  return count;
}

/**
 * The limiter's view of the pool: its rows (points and expiry, both bigint) come back as numbers,
 * as its Redis and memory stores give them; other queries on the pool keep pg's defaults.
 */
function limiterClient(pool: Pool): Pick<Pool, "query"> {
  const types = { getTypeParser: ((oid: number) => (oid === INT8_OID ? countOf : (text: string) => text)) as CustomTypesConfig["getTypeParser"] };
  return { query: ((config: QueryConfig) => pool.query({ ...config, types })) as Pool["query"] };
}

/** The same shape as the pickup service's key-value backend (memory or Redis otherwise). */
export interface PostgresHandoverKv {
  codes: Keyv;
  limiter(spec: { keyPrefix: string; points: number; durationSec: number }): RateLimiterAbstract;
  close(): Promise<void>;
}

export function postgresHandoverKv(pool: Pool): PostgresHandoverKv {
  return {
    codes: new Keyv({ store: new PostgresCodeStore(pool), namespace: NAMESPACE }),
    limiter: ({ keyPrefix, points, durationSec }) =>
      new RateLimiterPostgres({
        storeClient: limiterClient(pool),
        storeType: "pool",
        tableName: "baton_limits",
        tableCreated: true,
        keyPrefix: `${NAMESPACE}:${keyPrefix}`,
        points,
        duration: durationSec,
      }),
    // The pool belongs to the instance: closed with it.
    close: async () => undefined,
  };
}

// A write transaction that carries its writer's epoch (see the fence trigger in migrations.ts).
import type { Pool, PoolClient } from "pg";
import { BatonError } from "../../kernel/errors.js";

/** SQLSTATE the fence trigger raises. */
const FENCED_SQLSTATE = "BF001";

/** The database refused a write because another instance has taken the lead since. */
export class FencedError extends BatonError {
  constructor(detail: string) {
    super("Another Baton instance has taken over; this one stopped serving.", { detail });
  }
}

function isFenced(error: unknown): boolean {
  return (error as { code?: string } | undefined)?.code === FENCED_SQLSTATE;
}

/** The server answered with an error (a SQLSTATE, five characters), so the connection itself is sound. */
function fromServer(error: unknown): boolean {
  return /^[0-9A-Z]{5}$/.test(String((error as { code?: unknown } | undefined)?.code));
}

/** Rolls back; the error when that failed too (the connection is then not used again). */
async function rollback(client: PoolClient): Promise<Error | undefined> {
  try {
    await client.query("ROLLBACK");
    return undefined;
  } catch (error) {
    return error as Error;
  }
}

/** Runs `work` in a transaction that declares `epoch`; a refused write rejects with FencedError. */
export async function fencedTransaction<T>(pool: Pool, epoch: number, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let failed: Error | undefined;
  try {
    await client.query("BEGIN");
    await client.query("SELECT set_config('baton.epoch', $1, true)", [String(epoch)]);
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    // A connection that failed or timed out is not used again (released with the error, it is
    // closed, and the server rolls back); one that answered with an error is rolled back and kept.
    failed = fromServer(error) ? await rollback(client) : (error as Error);
    throw isFenced(error) ? new FencedError((error as Error).message) : error;
  } finally {
    client.release(failed);
  }
}

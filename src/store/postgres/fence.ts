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

/** Runs `work` in a transaction that declares `epoch`; a refused write rejects with FencedError. */
export async function fencedTransaction<T>(pool: Pool, epoch: number, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT set_config('baton.epoch', $1, true)", [String(epoch)]);
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw isFenced(error) ? new FencedError((error as Error).message) : error;
  } finally {
    client.release();
  }
}

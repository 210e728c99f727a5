// Platforms' state that follows the leader (Matrix's login and end-to-end crypto store), kept on
// PostgreSQL: per key a snapshot and the records appended after it. Writes are queued per key and
// stored in order, each batch in one fenced transaction; a batch that fails (the database out of
// reach) stays queued and goes with the next write, so nothing is stored out of order. A refused
// (fenced) batch is dropped: this instance no longer leads. What is stored may hold secrets: only
// keys and error messages are logged.
import type { Pool, PoolClient } from "pg";
import type { PlatformSnapshots, StoredSnapshot } from "../../platforms/contract.js";
import { FencedError, fencedTransaction } from "./fence.js";

type Write = { kind: "append"; generation: number; data: Buffer } | { kind: "replace"; generation: number; data: Buffer };

export class PostgresSnapshots implements PlatformSnapshots {
  private readonly queued = new Map<string, Write[]>();
  private readonly draining = new Map<string, Promise<void>>();

  constructor(
    private readonly pool: Pool,
    private readonly epoch: () => number,
    private readonly onError: (key: string, error: unknown) => void,
  ) {}

  async load(key: string): Promise<StoredSnapshot | undefined> {
    const head = await this.pool.query<{ generation: string; snapshot: Buffer }>("SELECT generation, snapshot FROM baton_platform_snapshots WHERE key = $1", [key]);
    if (head.rows.length === 0) return undefined;
    const { generation, snapshot } = head.rows[0]!;
    const records = await this.pool.query<{ record: Buffer }>("SELECT record FROM baton_platform_records WHERE key = $1 AND generation >= $2 ORDER BY seq", [key, generation]);
    return { snapshot, records: records.rows.map((r) => r.record) };
  }

  append(key: string, generation: number, record: Buffer): void {
    this.enqueue(key, { kind: "append", generation, data: record });
  }

  replace(key: string, generation: number, snapshot: Buffer): void {
    this.enqueue(key, { kind: "replace", generation, data: snapshot });
  }

  flushed(key: string): Promise<void> {
    if (this.queued.get(key)?.length && !this.draining.has(key)) this.drain(key);
    return this.draining.get(key) ?? Promise.resolve();
  }

  private enqueue(key: string, write: Write): void {
    const queue = this.queued.get(key) ?? [];
    queue.push(write);
    this.queued.set(key, queue);
    if (!this.draining.has(key)) this.drain(key);
  }

  /** Stores what is queued under `key`, batch after batch, until the queue is empty or a batch fails. */
  private drain(key: string): void {
    const run = (async () => {
      for (let queue = this.queued.get(key) ?? []; queue.length > 0; queue = this.queued.get(key) ?? []) {
        const batch = queue.splice(0, queue.length);
        try {
          await this.store(key, batch);
        } catch (error) {
          // Refused: another instance leads, and what it stores wins. Failed: kept for the next write.
          if (!(error instanceof FencedError)) queue.unshift(...batch);
          this.onError(key, error);
          return;
        }
      }
    })().finally(() => this.draining.delete(key));
    this.draining.set(key, run);
  }

  private store(key: string, batch: Write[]): Promise<void> {
    const epoch = this.epoch();
    return fencedTransaction(this.pool, epoch, async (client) => {
      for (const write of batch) await (write.kind === "append" ? appendRecord(client, key, write, epoch) : replaceSnapshot(client, key, write, epoch));
    });
  }
}

function appendRecord(client: PoolClient, key: string, write: Write, epoch: number): Promise<unknown> {
  return client.query("INSERT INTO baton_platform_records (key, generation, record, epoch) VALUES ($1, $2, $3, $4)", [key, write.generation, write.data, epoch]);
}

async function replaceSnapshot(client: PoolClient, key: string, write: Write, epoch: number): Promise<void> {
  await client.query(
    `INSERT INTO baton_platform_snapshots (key, generation, snapshot, epoch) VALUES ($1, $2, $3, $4)
     ON CONFLICT (key) DO UPDATE SET generation = EXCLUDED.generation, snapshot = EXCLUDED.snapshot, epoch = EXCLUDED.epoch, updated_at = now()`,
    [key, write.generation, write.data, epoch],
  );
  await client.query("DELETE FROM baton_platform_records WHERE key = $1 AND generation < $2", [key, write.generation]);
}

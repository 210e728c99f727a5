// How far each platform has read (Telegram's update offset, …), kept on PostgreSQL so an instance
// that takes over continues where the last leader stopped. Writes are fenced like the event log's;
// while one is in flight for a key, later values wait and only the newest is written.
import type { Pool } from "pg";
import type { PlatformCursors } from "../../platforms/contract.js";
import { fencedTransaction } from "./fence.js";

export class PostgresCursors implements PlatformCursors {
  private readonly waiting = new Map<string, string>();
  private readonly writing = new Set<string>();

  constructor(
    private readonly pool: Pool,
    private readonly epoch: () => number,
    private readonly onError: (key: string, error: unknown) => void,
  ) {}

  async get(key: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ value: string }>("SELECT value FROM baton_cursors WHERE key = $1", [key]);
    return rows[0]?.value;
  }

  set(key: string, value: string): void {
    this.waiting.set(key, value);
    if (!this.writing.has(key)) void this.drain(key);
  }

  /** Writes now (fenced); rejects when the write is refused or fails. */
  async write(key: string, value: string): Promise<void> {
    const epoch = this.epoch();
    await fencedTransaction(this.pool, epoch, (client) =>
      client.query("INSERT INTO baton_cursors (key, value, epoch) VALUES ($1, $2, $3) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, epoch = EXCLUDED.epoch, updated_at = now()", [
        key,
        value,
        epoch,
      ]),
    );
  }

  private async drain(key: string): Promise<void> {
    this.writing.add(key);
    try {
      for (let value = this.waiting.get(key); value !== undefined; value = this.waiting.get(key)) {
        this.waiting.delete(key);
        try {
          await this.write(key, value);
        } catch (error) {
          this.onError(key, error);
        }
      }
    } finally {
      this.writing.delete(key);
    }
  }
}

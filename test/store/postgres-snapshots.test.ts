// Platforms' snapshots on PostgreSQL (store.url), under the persistent IndexedDB the Matrix crypto
// store uses: what one instance committed (up to a crash: no close) is what the next one opens from
// an empty dir; a compaction drops the records it folded in; a write from a replaced epoch is
// refused and stores nothing; a write that failed stays queued and goes, in order, with the next.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { openPersistentIndexedDb } from "../../src/platforms/matrix/persistent-idb.js";
import { cryptoStoreMirror } from "../../src/platforms/matrix/crypto-store.js";
import { PostgresSnapshots } from "../../src/store/postgres/snapshots.js";
import { closedPort } from "../support/closed-port.js";
import { postgresForFile } from "../support/postgres-file.js";

const { missing, server } = postgresForFile();
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const emptyDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "baton-snapshots-"));
  dirs.push(dir);
  return join(dir, "crypto");
};

const done = <T>(request: IDBRequest<T>) => new Promise<T>((resolve, reject) => ((request.onsuccess = () => resolve(request.result)), (request.onerror = () => reject(request.error))));
function openDb(factory: IDBFactory): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = factory.open("keys", 1);
    request.onupgradeneeded = () => request.result.createObjectStore("keys");
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}
async function put(factory: IDBFactory, key: string, value: unknown): Promise<void> {
  const db = await openDb(factory);
  const tx = db.transaction("keys", "readwrite");
  tx.objectStore("keys").put(value, key);
  await new Promise((resolve) => (tx.oncomplete = resolve));
  db.close();
}
async function all(factory: IDBFactory): Promise<unknown[]> {
  const db = await openDb(factory);
  const values = await done(db.transaction("keys").objectStore("keys").getAll());
  db.close();
  return values;
}

describe.skipIf(missing)("platform snapshots on PostgreSQL", () => {
  const errors: unknown[] = [];
  const snapshotsOn = (pool: pg.Pool, epoch = () => 1) => new PostgresSnapshots(pool, epoch, (_key, error) => void errors.push(error));

  it("the next instance opens, from an empty dir, what the last one committed before it crashed", async () => {
    const { pool } = await server().migratedPool();
    await pool.query("UPDATE baton_leadership SET epoch = 1");
    const first = snapshotsOn(pool);
    const store = await openPersistentIndexedDb(emptyDir(), undefined, cryptoStoreMirror(first, "k"));
    await put(store.factory, "identity", { secret: new Uint8Array([1, 2, 3]) });
    await put(store.factory, "room", "megolm");
    await first.flushed("k");
    // No close: a crash. The next instance has its own empty dir and the database.
    const next = await openPersistentIndexedDb(emptyDir(), undefined, cryptoStoreMirror(snapshotsOn(pool), "k"));
    expect(await all(next.factory)).toEqual([{ secret: new Uint8Array([1, 2, 3]) }, "megolm"]);
    // Its open folded the records into a snapshot of a newer generation: the records are gone.
    await next.close();
    expect((await pool.query("SELECT count(*)::int AS n FROM baton_platform_records WHERE key = 'k'")).rows[0].n).toBe(0);
    expect(await snapshotsOn(pool).load("other")).toBeUndefined();
    expect(errors).toEqual([]);
  });

  it("refuses a write from a replaced epoch; keeps a failed one for the next write, in order", async () => {
    const { pool, url } = await server().migratedPool();
    await pool.query("UPDATE baton_leadership SET epoch = 2");
    const stale = snapshotsOn(pool, () => 1);
    stale.replace("s", 0, Buffer.from("old leader"));
    await stale.flushed("s");
    expect(errors.splice(0)).toMatchObject([{ name: "FencedError", userMessage: expect.stringMatching(/taken over/) }]);
    expect(await stale.load("s")).toBeUndefined();

    // A database out of reach: the write fails, stays queued, and is stored before the next one.
    const { default: Pg } = await import("pg");
    const broken = new Pg.Pool({ connectionString: url.replace(/:(\d+)\//, `:${await closedPort()}/`), connectionTimeoutMillis: 500 });
    let current: pg.Pool = broken;
    const switchable = { query: (...args: Parameters<pg.Pool["query"]>) => current.query(...args), connect: () => current.connect() } as unknown as pg.Pool;
    const flaky = new PostgresSnapshots(
      switchable,
      () => 2,
      (_k, e) => void errors.push(e),
    );
    flaky.replace("s", 0, Buffer.from("snapshot"));
    await flaky.flushed("s");
    expect(errors.splice(0)).toHaveLength(1);
    current = pool;
    flaky.append("s", 0, Buffer.from("record"));
    await flaky.flushed("s");
    expect(errors).toEqual([]);
    expect(await flaky.load("s")).toEqual({ snapshot: Buffer.from("snapshot"), records: [Buffer.from("record")] });
    await broken.end();
  });
});

// The PostgreSQL event log passes the same contract suite as the JSONL file, against a real
// PostgreSQL server; and its writes are fenced by the leader's epoch.
import pg from "pg";
import { describe, expect, it } from "vitest";
import { makeEvent } from "../../src/threads/events.js";
import { migrate } from "../../src/store/postgres/migrations.js";
import { PostgresEventStore } from "../../src/store/postgres/event-store.js";
import { FencedError } from "../../src/store/postgres/fence.js";
import { runEventStoreContract } from "../threads/store-contract.js";
import { postgresForFile } from "../support/postgres-file.js";
import { closedPort } from "../support/closed-port.js";
import { EventLogWriteError } from "../../src/threads/store.js";

const { missing, server } = postgresForFile();

const freshPool = async (): Promise<pg.Pool> => (await server().migratedPool()).pool;

describe.skipIf(missing)("PostgreSQL event store", () => {
  runEventStoreContract("postgres", {
    async create() {
      const pool = await freshPool();
      return { store: new PostgresEventStore(pool, () => 0), reopen: async () => new PostgresEventStore(pool, () => 0) };
    },
  });

  it("applies its migrations once, however many instances start together", async () => {
    const pool = await freshPool();
    const clients = await Promise.all([pool.connect(), pool.connect(), pool.connect()]);
    try {
      const applied = await Promise.all(clients.map((c) => migrate(c)));
      expect(applied.flat()).toEqual([]);
      const { rows } = await pool.query("SELECT version FROM baton_migrations ORDER BY version");
      const versions = rows.map((r) => r.version);
      expect(versions).toEqual(versions.map((_, i) => i + 1));
      expect(versions.length).toBeGreaterThanOrEqual(4);
    } finally {
      for (const c of clients) c.release();
    }
  });

  it("refuses a write from an epoch that a newer leader has replaced, and keeps nothing of it", async () => {
    const pool = await freshPool();
    await pool.query("UPDATE baton_leadership SET epoch = 3");
    const old = new PostgresEventStore(pool, () => 2);
    const current = new PostgresEventStore(pool, () => 3);
    await current.append([makeEvent("th_1", { type: "route_attached", route: "test:a" })]);
    await expect(old.append([makeEvent("th_1", { type: "route_attached", route: "test:late" })])).rejects.toBeInstanceOf(FencedError);
    await expect(old.compact(() => false)).rejects.toBeInstanceOf(FencedError);
    const routes: string[] = [];
    await current.replay((e) => e.type === "route_attached" && routes.push(e.route));
    expect(routes).toEqual(["test:a"]);
  });

  it("refuses a write that carries no epoch at all (the database checks, not the client)", async () => {
    const pool = await freshPool();
    await expect(pool.query("INSERT INTO baton_thread_events (id, thread, body, epoch) VALUES ('ev_x', 'th_1', '{}', 99)")).rejects.toMatchObject({ code: "BF001" });
  });

  it("a write the database never gets fails naming the database, not the disk", async () => {
    const port = await closedPort();
    const pool = new pg.Pool({ connectionString: `postgres://baton@127.0.0.1:${port}/baton` });
    try {
      const failed = await new PostgresEventStore(pool, () => 0).append([makeEvent("th_1", { type: "route_attached", route: "test:a" })]).catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(EventLogWriteError);
      expect((failed as EventLogWriteError).userMessage).toMatch(
        /^This change could not be saved to the database \(store\.url\) \(.*ECONNREFUSED.*\); nothing was changed\. Check that PostgreSQL is reachable from the Baton machine and try again\.$/,
      );
    } finally {
      await pool.end();
    }
  });

  it("skips a stored row that is not a valid event, naming it", async () => {
    const pool = await freshPool();
    const store = new PostgresEventStore(pool, () => 0);
    await store.append([makeEvent("th_1", { type: "route_attached", route: "test:a" })]);
    const client = await pool.connect();
    await client.query("BEGIN; SELECT set_config('baton.epoch', '0', true)");
    await client.query(`INSERT INTO baton_thread_events (id, thread, body, epoch) VALUES ('ev_bad', 'th_1', '{"type":"nonsense"}', 0)`);
    await client.query("COMMIT");
    client.release();
    const report = await store.replay(() => undefined);
    expect(report.events).toBe(1);
    expect(report.skipped).toHaveLength(1);
    expect(report.skipped[0].reason).toMatch(/not a valid event/);
  });
});

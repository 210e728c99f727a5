// A standby's follower reads the event log as it grows; the next leader's replay then reads only the
// rows after it. Differential: a replay that starts from what was followed gives exactly the events
// (and skipped rows) of a full replay — with appends after the last read, a row that is not a valid
// event, and a compaction after the follower read (which it detects, and then reads all again).
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { PostgresEventStore } from "../../src/store/postgres/event-store.js";
import { EventLogFollower } from "../../src/store/postgres/follower.js";
import { makeEvent, type ThreadEvent } from "../../src/threads/events.js";
import type { ReplayReport } from "../../src/threads/store.js";
import { postgresForFile } from "../support/postgres-file.js";

const { missing, server } = postgresForFile();

async function replayed(store: PostgresEventStore): Promise<{ events: ThreadEvent[]; report: ReplayReport }> {
  const events: ThreadEvent[] = [];
  const report = await store.replay((event) => events.push(event));
  return { events, report };
}

const batch = (from: number, count: number) => Array.from({ length: count }, (_, i) => makeEvent(`th_${(from + i) % 7}`, { type: "route_attached", route: `test:${from + i}` }));

async function appendInvalidRow(pool: pg.Pool, id: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN; SELECT set_config('baton.epoch', '0', true)");
    await client.query(`INSERT INTO baton_thread_events (id, thread, body, epoch) VALUES ($1, 'th_1', '{"type":"nonsense"}', 0)`, [id]);
    await client.query("COMMIT");
  } finally {
    client.release();
  }
}

describe.skipIf(missing)("a standby following the event log", () => {
  it("a replay from what it followed equals a full replay, and reads only the rows after it", async () => {
    const { pool } = await server().migratedPool();
    const leader = new PostgresEventStore(pool, () => 0);
    const follower = new EventLogFollower(pool);
    await leader.append(batch(0, 30));
    await follower.follow();
    await appendInvalidRow(pool, "ev_bad");
    await leader.append(batch(30, 12_000)); // more than a page of rows
    await follower.follow();
    await leader.append(batch(12_030, 25)); // after the last read: the replay reads these itself

    const followed = await follower.take();
    expect(followed.rows).toBe(12_031);
    const fromFollowed = await replayed(new PostgresEventStore(pool, () => 0, followed));
    const full = await replayed(new PostgresEventStore(pool, () => 0));
    expect(fromFollowed.events).toEqual(full.events);
    expect(fromFollowed.report).toEqual({ ...full.report, preread: 12_031 });
    expect(full.report.events).toBe(12_055);
    expect(full.report.skipped).toHaveLength(1);
    // Taken: the follower starts over.
    expect((await follower.take()).rows).toBe(0);
  });

  it("after a compaction of rows it had read, the replay reads the whole log again", async () => {
    const { pool } = await server().migratedPool();
    const leader = new PostgresEventStore(pool, () => 0);
    const follower = new EventLogFollower(pool);
    await leader.append(batch(0, 100));
    await follower.follow();
    await leader.compact((event) => event.type !== "route_attached" || !event.route.endsWith("7"));
    await leader.append(batch(100, 10));

    const followed = await follower.take();
    expect(followed.rows).toBe(100);
    const fromFollowed = await replayed(new PostgresEventStore(pool, () => 0, followed));
    const full = await replayed(new PostgresEventStore(pool, () => 0));
    expect(fromFollowed.events).toEqual(full.events);
    expect(fromFollowed.report.preread).toBeUndefined();
    expect(full.events).toHaveLength(100);
  });
});

// One leader among instances on one PostgreSQL: takeover when the leader's process dies, a leader
// cut from the database stops itself within its lease, and its late writes are refused by epoch; a
// leader only slowed down (a busy machine) keeps the lead, and one whose lease ran out drains first.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { makeEvent } from "../../src/threads/events.js";
import { LeaderLease, readLeadership, type LeaseTiming } from "../../src/store/postgres/lease.js";
import { PostgresEventStore } from "../../src/store/postgres/event-store.js";
import { FencedError } from "../../src/store/postgres/fence.js";
import { postgresForFile } from "../support/postgres-file.js";
import { startTcpProxy } from "../support/tcp-proxy.js";

const { missing, server } = postgresForFile();
const TIMING: LeaseTiming = { renewMs: 200, leaseMs: 1_500 };
const DIST_LEASE = pathToFileURL(join(import.meta.dirname, "../../dist/store/postgres/lease.js")).href;
const cleanups: Array<() => Promise<unknown>> = [];

// Registered after the server's own hooks, so it runs before the server stops.
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

const database = () => server().migratedPool(undefined, 2);

function lease(url: string, id: string): LeaderLease {
  const l = new LeaderLease(url, id, TIMING);
  cleanups.push(() => l.close());
  return l;
}

describe.skipIf(missing)("leader lease on PostgreSQL", () => {
  it("elects one leader; a standby leads within a second of the leader's process being killed", async () => {
    const { url, pool } = await database();
    const holder = spawn(process.execPath, [join(import.meta.dirname, "../support/lease-holder.mjs"), DIST_LEASE, url, "first", String(TIMING.renewMs), String(TIMING.leaseMs)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    cleanups.push(async () => holder.exitCode === null && holder.kill("SIGKILL"));
    const [line] = await once(holder.stdout!, "data");
    expect(String(line)).toBe("leading 1\n");
    const standby = lease(url, "second");
    const leading = standby.campaign();
    await new Promise((resolve) => setTimeout(resolve, 3 * TIMING.renewMs));
    expect(standby.leading).toBe(false);
    const killedAt = Date.now();
    holder.kill("SIGKILL");
    expect(await leading).toBe(2);
    expect(Date.now() - killedAt).toBeLessThan(1_000 + TIMING.renewMs);
    expect(await readLeadership(pool)).toMatchObject({ epoch: 2, leader: "second" });
  });

  it("a leader cut from the database stops within its lease; the standby leads; the old epoch's writes are refused", async () => {
    const { url, pool } = await database();
    const proxy = await startTcpProxy(server().port);
    cleanups.push(() => proxy.close());
    const throughProxy = url.replace(`:${server().port}/`, `:${proxy.port}/`);
    const leader = lease(throughProxy, "cut-off");
    expect(await leader.campaign()).toBe(1);
    const oldStore = new PostgresEventStore(pool, () => 1);
    await oldStore.append([makeEvent("th_1", { type: "route_attached", route: "test:before" })]);
    const lost = new Promise<{ reason: string; at: number }>((resolve) => leader.onLost((reason) => resolve({ reason, at: Date.now() })));
    const standby = lease(url, "standby");
    const standbyLeads = standby.campaign();
    const cutAt = Date.now();
    proxy.blackhole();
    const stopped = await lost;
    // A lease after the last renewal began, one last renewal gets half a lease to answer.
    expect(stopped.at - cutAt).toBeLessThanOrEqual(1.5 * TIMING.leaseMs + TIMING.renewMs + 100);
    expect(stopped.reason).toMatch(/lease|renew/);
    expect(await standbyLeads).toBe(2);
    // The cut-off session still holds the lock on the server until the standby ends it: the standby
    // may lead only after the lease has run out, which was after the old leader stopped.
    expect(Date.now() - cutAt).toBeLessThan(10_000);
    await expect(oldStore.append([makeEvent("th_1", { type: "route_attached", route: "test:late" })])).rejects.toBeInstanceOf(FencedError);
    const newStore = new PostgresEventStore(pool, () => standby.epoch);
    await newStore.append([makeEvent("th_1", { type: "route_attached", route: "test:after" })]);
    const routes: string[] = [];
    await newStore.replay((e) => e.type === "route_attached" && routes.push(e.route));
    expect(routes).toEqual(["test:before", "test:after"]);
  });

  it("steps down at once: the standby leads on its next try, with the next epoch", async () => {
    const { url } = await database();
    const first = lease(url, "first");
    expect(await first.campaign()).toBe(1);
    const second = lease(url, "second");
    const leads = second.campaign();
    const lostReasons: string[] = [];
    first.onLost((r) => lostReasons.push(r));
    const steppedAt = Date.now();
    await first.stepDown();
    expect(await leads).toBe(2);
    expect(Date.now() - steppedAt).toBeLessThan(3 * TIMING.renewMs);
    expect(() => first.epoch).toThrow(/does not lead/);
    expect(lostReasons).toEqual([]);
  });

  it("a leader whose process stalls past its lease (a busy machine) keeps the lead: its session still answers", async () => {
    const { url, pool } = await database();
    const leader = lease(url, "stalled");
    expect(await leader.campaign()).toBe(1);
    const lostReasons: string[] = [];
    leader.onLost((r) => lostReasons.push(r));
    // The event loop blocked longer than a lease: every timer, the lease's deadline too, fires late.
    const until = Date.now() + TIMING.leaseMs + 3 * TIMING.renewMs;
    while (Date.now() < until);
    await new Promise((resolve) => setTimeout(resolve, 3 * TIMING.renewMs));
    expect(lostReasons).toEqual([]);
    expect(leader.leading).toBe(true);
    expect(await readLeadership(pool)).toMatchObject({ epoch: 1, leader: "stalled" });
  });

  it("a lease that ran out keeps its lock until the drain ends: what the drain writes counts, then the standby leads", async () => {
    const { url, pool } = await database();
    const timing = { renewMs: 200, leaseMs: 3_000 };
    const leader = new LeaderLease(url, "slow", timing);
    cleanups.push(() => leader.close());
    expect(await leader.campaign()).toBe(1);
    const lost = new Promise<string>((resolve) => leader.onLost(resolve));
    // The database holds the renewals up (a lock on the lease row), so the lease runs out.
    const blocker = await pool.connect();
    await blocker.query("BEGIN");
    await blocker.query("SELECT * FROM baton_leadership FOR UPDATE");
    const standby = new LeaderLease(url, "standby", timing);
    cleanups.push(() => standby.close());
    const standbyLeads = standby.campaign();
    expect(await lost).toMatch(/ran out/);
    await blocker.query("ROLLBACK");
    blocker.release();
    // The daemon drains (a few standby tries long): a prompt kept now, with the lost lead's epoch, reaches the log.
    await new Promise((resolve) => setTimeout(resolve, 3 * timing.renewMs));
    const draining = new PostgresEventStore(pool, () => 1);
    await draining.append([makeEvent("th_1", { type: "route_attached", route: "test:kept-while-draining" })]);
    expect(standby.leading).toBe(false);
    await leader.stepDown();
    expect(await standbyLeads).toBe(2);
    const routes: string[] = [];
    await new PostgresEventStore(pool, () => standby.epoch).replay((e) => e.type === "route_attached" && routes.push(e.route));
    expect(routes).toEqual(["test:kept-while-draining"]);
  });

  it("a leader whose epoch was replaced notices at its next renewal", async () => {
    const { url, pool } = await database();
    const leader = lease(url, "first");
    await leader.campaign();
    const lost = new Promise<string>((resolve) => leader.onLost(resolve));
    await pool.query("UPDATE baton_leadership SET epoch = epoch + 1");
    expect(await lost).toMatch(/replaced by a newer leader/);
    expect(leader.leading).toBe(false);
  });
});

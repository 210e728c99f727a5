// Limits per person on PostgreSQL (store.url): two instances' limits over one database count one
// person once — racing admissions included — share a running turn's place, what turns spent, and
// who used Baton today, and a day's spend past what an int4 holds. The clock of limits is the test's.
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { PersonLimits, type PersonLimitsDeps } from "../../src/core/limits/limits.js";
import { silentLogger } from "../../src/kernel/log.js";
import { postgresHandoverKv } from "../../src/store/postgres/codes.js";
import { migrate } from "../../src/store/postgres/migrations.js";
import { postgresForFile } from "../support/postgres-file.js";

const { missing, server } = postgresForFile();
const bob = { id: "test:bob", name: "Bob" };
const admin = { id: "test:admin", name: "Admin" };
const ROUTE = "test:room";

async function twoInstances(perPerson: Record<string, number>, clock: { now: number }): Promise<[PersonLimits, PersonLimits]> {
  const a = await server().migratedPool();
  const b = await server().migratedPool(a.url);
  const config = { limits: { per_person: perPerson, admins: false }, access: { people: {} }, time_zone: "UTC" } as unknown as LimitsConfig;
  return [limitsOn(a.pool, config, clock), limitsOn(b.pool, config, clock)];
}

type LimitsConfig = ReturnType<PersonLimitsDeps["config"]>;

function limitsOn(pool: pg.Pool, config: LimitsConfig, clock: { now: number }): PersonLimits {
  return new PersonLimits({ config: () => config, isAdmin: (id) => id === admin.id, store: postgresHandoverKv(pool), now: () => clock.now, log: silentLogger() });
}

describe.skipIf(missing)("limits per person on PostgreSQL", () => {
  it("counts a person's turns once across instances, racing admissions included, until the hour ends", async () => {
    const clock = { now: Date.UTC(2026, 11, 5, 7, 37) };
    const [a, b] = await twoInstances({ turns_per_hour: 5 }, clock);
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).admit(bob, ROUTE)));
    expect(results.filter((r) => r.ok)).toHaveLength(5);
    const refused = results.find((r) => !r.ok);
    expect(refused && !refused.ok && refused.text).toContain("You have reached your limit of 5 prompts to agents an hour (limits.per_person.turns_per_hour). It resets at 08:00 UTC, in 23 min.");
    clock.now = Date.UTC(2026, 11, 5, 8, 0, 1);
    expect((await b.admit(bob, ROUTE)).ok).toBe(true);
  });

  it("holds a running turn's place on both until it ends", async () => {
    const clock = { now: Date.UTC(2026, 11, 5, 7, 37) };
    const [a, b] = await twoInstances({ concurrent_turns: 1 }, clock);
    const first = await a.admit(bob, ROUTE);
    expect(first.ok).toBe(true);
    const second = await b.admit(bob, ROUTE);
    expect(second.ok ? "" : second.text).toMatch(/You already have 1 turn running or queued/);
    if (first.ok) first.ticket.end(true);
    await until(async () => (await b.admit(bob, ROUTE)).ok);
    a.stop();
    b.stop();
  });

  it("shares what turns spent and who used Baton today: the other instance refuses past usd_per_day, its admin's /usage lists the person", async () => {
    const clock = { now: Date.UTC(2026, 11, 5, 7, 37) };
    const [a, b] = await twoInstances({ usd_per_day: 0.003 }, clock);
    const admitted = await a.admit(bob, ROUTE);
    if (!admitted.ok) throw new Error(admitted.text);
    await a.charge(admitted.ticket.person, { usd: 0.0031, tokens: 1_234 });
    admitted.ticket.end(true);
    const refused = await b.admit(bob, ROUTE);
    expect(refused.ok ? "" : refused.text).toBe(
      "⏳ Your turns have cost $0.0031 today: your limit is $0.0030 a day (limits.per_person.usd_per_day). It resets at 00:00 UTC, in 16 h 23 min. This message was not sent to the agent.",
    );
    const report = await b.report(admin, ROUTE);
    expect(report).toContain("- `test:bob`: 1 turn this hour · $0.0031 · 1,234 tokens today");
    // An admin is counted too, but not stopped.
    expect((await b.admit(admin, ROUTE)).ok).toBe(true);
  });

  it("counts a person's day past $2,147 (a bigint count): a $2,500 and a $3,000 turn stop them at a $5,000 cap", async () => {
    const clock = { now: Date.UTC(2026, 11, 5, 7, 37) };
    const [a, b] = await twoInstances({ usd_per_day: 5_000 }, clock);
    await spend(a, 2_500);
    expect((await b.admit(bob, ROUTE)).ok).toBe(true);
    await spend(b, 3_000);
    const refused = await a.admit(bob, ROUTE);
    expect(refused.ok ? "" : refused.text).toContain("Your turns have cost $5,500.00 today: your limit is $5,000.00 a day");
  });

  it("upgrades a database made before the bigint count in place: its counts stay and grow past $2,147", async () => {
    const clock = { now: Date.UTC(2026, 11, 5, 7, 37) };
    const { url, pool } = await server().migratedPool();
    // The database as Baton left it before schema version 6: points an integer, version 6 not applied.
    await pool.query("ALTER TABLE baton_limits ALTER COLUMN points TYPE integer");
    await pool.query("DELETE FROM baton_migrations WHERE version = 6");
    const config = { limits: { per_person: { usd_per_day: 5_000 }, admins: false }, access: { people: {} }, time_zone: "UTC" } as unknown as LimitsConfig;
    const before = limitsOn(pool, config, clock);
    await spend(before, 2_000);
    const client = await pool.connect();
    await expect(migrate(client).finally(() => client.release())).resolves.toEqual([6]);
    const { rows } = await pool.query("SELECT data_type FROM information_schema.columns WHERE table_name = 'baton_limits' AND column_name = 'points'");
    expect(rows[0].data_type).toBe("bigint");
    const after = limitsOn((await server().migratedPool(url)).pool, config, clock);
    await spend(after, 2_000);
    expect(await after.report(bob, ROUTE)).toContain("Cost today: $4,000.00");
  });
});

/** One turn of Bob's that cost `usd`. */
async function spend(limits: PersonLimits, usd: number): Promise<void> {
  const admitted = await limits.admit(bob, ROUTE);
  if (!admitted.ok) throw new Error(admitted.text);
  await limits.charge(admitted.ticket.person, { usd });
  admitted.ticket.end(true);
}

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

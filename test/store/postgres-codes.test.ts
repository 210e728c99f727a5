// Pickup codes and failed-pickup limits on PostgreSQL (store.url): two instances' stores over one
// database, as after a takeover — a code minted through one is consumed through the other, exactly
// once under concurrent pickups, and the per-sender limit counts across both.
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { PickupCodes } from "../../src/pickup/codes.js";
import { PickupLimits } from "../../src/pickup/limits.js";
import { postgresHandoverKv } from "../../src/store/postgres/codes.js";
import { postgresForFile } from "../support/postgres-file.js";

const { missing, server } = postgresForFile();

/** Two instances' pools on one database. */
async function twoInstances(): Promise<[pg.Pool, pg.Pool]> {
  const a = await server().migratedPool();
  const b = await server().migratedPool(a.url);
  return [a.pool, b.pool];
}

describe.skipIf(missing)("pickup codes on PostgreSQL", () => {
  it("a code minted on one instance is consumed on the other, once, whatever the race", async () => {
    const [a, b] = await twoInstances();
    const issuer = new PickupCodes(postgresHandoverKv(a).codes);
    const other = new PickupCodes(postgresHandoverKv(b).codes);
    for (let round = 0; round < 10; round++) {
      const { code } = await issuer.issue({ agent: "demo", session: `s${round}`, cwd: "/tmp" });
      const results = await Promise.all([other.consume(code), other.consume(code.toLowerCase()), issuer.consume(code)]);
      expect(results.filter(Boolean)).toEqual([{ agent: "demo", session: `s${round}`, cwd: "/tmp" }]);
    }
    expect(await other.consume("ZZZZ")).toBeUndefined();
  });

  it("an expired code is refused on the other instance", async () => {
    const [a, b] = await twoInstances();
    const { code } = await new PickupCodes(postgresHandoverKv(a).codes, 200).issue({ agent: "demo", session: "s", cwd: "/tmp" });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await new PickupCodes(postgresHandoverKv(b).codes).consume(code)).toBeUndefined();
  });

  it("failed pickups of one sender count across instances", async () => {
    const [a, b] = await twoInstances();
    const sender = `test:${randomUUID()}`;
    const limitsA = new PickupLimits(postgresHandoverKv(a), { failedPerSenderPerMin: 5, failedTotalPerMin: 1000 });
    const limitsB = new PickupLimits(postgresHandoverKv(b), { failedPerSenderPerMin: 5, failedTotalPerMin: 1000 });
    for (let i = 0; i < 5; i++) {
      const admission = await (i % 2 ? limitsA : limitsB).admit(sender);
      expect(admission.ok).toBe(true);
      if (admission.ok) await admission.settle(false);
    }
    expect((await limitsA.admit(sender)).ok).toBe(false);
    expect((await limitsB.admit(`test:${randomUUID()}`)).ok).toBe(true);
  });
});

import { describe, expect, it } from "vitest";
import { CODE_ALPHABET, PickupCodes, generateCode, normalizeCode, type HandoverPayload } from "../../src/pickup/codes.js";
import { openHandoverKv } from "../../src/pickup/kv.js";
import { PickupLimits } from "../../src/pickup/limits.js";
import { knownSecretCount, redactKnownValues } from "../../src/kernel/secrets.js";

const payload: HandoverPayload = { agent: "demo", session: "s-1", cwd: "/tmp" };
const TTL_MS = 120_000;

async function newCodes(start = 1_000_000) {
  let now = start;
  const kv = await openHandoverKv("memory");
  const codes = new PickupCodes(kv.codes, TTL_MS, { now: () => now });
  return { codes, advance: (ms: number) => (now += ms), kv };
}

describe("pickup codes", () => {
  it("are 4 characters of the unambiguous alphabet", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const code = generateCode();
      expect(code).toMatch(/^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{4}$/);
      for (const ch of code) seen.add(ch);
    }
    expect(seen.size).toBe(CODE_ALPHABET.length);
  });

  it("accept any case and surrounding spaces, and reject look-alikes", () => {
    expect(normalizeCode(" k7pq ")).toBe("K7PQ");
    expect(normalizeCode("K7P0")).toBeUndefined();
    expect(normalizeCode("K7PI")).toBeUndefined();
    expect(normalizeCode("K7PQX")).toBeUndefined();
  });

  it("are secrets Baton knows while they live: no log line shows one, and it is let go after its TTL", async () => {
    const kv = await openHandoverKv("memory");
    const shortTtlMs = 200;
    const before = knownSecretCount();
    const { code } = await new PickupCodes(kv.codes, shortTtlMs).issue(payload);
    expect(redactKnownValues(`claimed /pickup ${code} in chat`)).toBe("claimed /pickup [REDACTED] in chat");
    expect(knownSecretCount()).toBe(before + 1);
    await new Promise((resolve) => setTimeout(resolve, shortTtlMs + 100));
    expect(knownSecretCount()).toBe(before);
    expect(redactKnownValues(`/pickup ${code}`)).toBe(`/pickup ${code}`);
  });

  it("are one-shot and consumed case-insensitively", async () => {
    const { codes } = await newCodes();
    const { code } = await codes.issue(payload);
    expect(await codes.consume(code.toLowerCase())).toEqual(payload);
    expect(await codes.consume(code)).toBeUndefined();
  });

  it("expire after the TTL on the injected clock", async () => {
    const { codes, advance } = await newCodes();
    const a = await codes.issue(payload);
    const b = await codes.issue(payload);
    expect(a.expiresAt).toBe(1_000_000 + TTL_MS);
    advance(TTL_MS - 1);
    expect(await codes.consume(a.code)).toEqual(payload);
    advance(1);
    expect(await codes.consume(b.code)).toBeUndefined();
  });

  it("let exactly one of many concurrent pickups of one code win", async () => {
    const { codes } = await newCodes();
    for (let round = 0; round < 20; round++) {
      const { code } = await codes.issue(payload);
      const results = await Promise.all(Array.from({ length: 10 }, () => codes.consume(code)));
      expect(results.filter((r) => r !== undefined)).toHaveLength(1);
    }
  });

  it("are gone after a restart (a new memory store)", async () => {
    const first = await newCodes();
    const { code } = await first.codes.issue(payload);
    const second = await newCodes();
    expect(await second.codes.consume(code)).toBeUndefined();
  });
});

describe("pickup rate limits", () => {
  const limitsOf = async (perSender = 5, total = 60) => new PickupLimits(await openHandoverKv("memory"), { failedPerSenderPerMin: perSender, failedTotalPerMin: total });

  async function fail(limits: PickupLimits, sender: string): Promise<boolean> {
    const admission = await limits.admit(sender);
    if (!admission.ok) return false;
    await admission.settle(false);
    return true;
  }

  it("refuse a sender after 5 failures, before the code is looked at", async () => {
    const limits = await limitsOf();
    for (let i = 0; i < 5; i++) expect(await fail(limits, "test:mallory")).toBe(true);
    const sixth = await limits.admit("test:mallory");
    expect(sixth.ok).toBe(false);
    if (!sixth.ok) {
      expect(sixth.scope).toBe("sender");
      expect(sixth.retryAfterMs).toBeGreaterThan(0);
      expect(sixth.retryAfterMs).toBeLessThanOrEqual(60_000);
    }
    expect((await limits.admit("test:alice")).ok).toBe(true);
  });

  it("do not count successful pickups as failures", async () => {
    const limits = await limitsOf();
    for (let i = 0; i < 20; i++) {
      const admission = await limits.admit("test:alice");
      expect(admission.ok).toBe(true);
      if (admission.ok) await admission.settle(true);
    }
  });

  it("charge every failure to the total, first tries included, and never refuse a right code from a sender under its own limit", async () => {
    const limits = await limitsOf(5, 60);
    // 60 senders fail once each: every one of those first tries is charged, so the total is spent.
    for (let s = 0; s < 60; s++) expect(await fail(limits, `test:bot${s}`)).toBe(true);
    expect(await limits.totalSpent()).toBe(true);
    // Alice mistypes once while the total is spent, then types the right code: it is checked and wins.
    expect(await fail(limits, "test:alice")).toBe(true);
    const alice = await limits.admit("test:alice");
    expect(alice.ok).toBe(true);
    if (alice.ok) await alice.settle(true);
    // Her own limit still holds: four more failures and she is refused.
    for (let i = 0; i < 4; i++) expect(await fail(limits, "test:alice")).toBe(true);
    const refused = await limits.admit("test:alice");
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.scope).toBe("sender");
  });

  it("once the total is spent, a sender's failures count against it for the long window, not just the minute", async () => {
    const kv = await openHandoverKv("memory");
    const limits = new PickupLimits(kv, { failedPerSenderPerMin: 2, failedTotalPerMin: 1, windowSec: 1, lockdownWindowSec: 60 });
    expect(await fail(limits, "test:bot")).toBe(true);
    expect(await fail(limits, "test:eve")).toBe(true);
    expect(await fail(limits, "test:eve")).toBe(true);
    expect((await limits.admit("test:eve")).ok).toBe(false);
    // The one-second window has passed; failures made while the total was spent still count.
    await new Promise((r) => setTimeout(r, 1_200));
    const later = await limits.admit("test:eve");
    expect(later.ok).toBe(false);
    if (!later.ok) expect(later.scope).toBe("sender");
    // A sender who failed before the total was spent is back after the window.
    expect((await limits.admit("test:bot")).ok).toBe(true);
  });
});

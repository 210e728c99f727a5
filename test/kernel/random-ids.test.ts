// Ids drawn from the pooled random bytes: the asked length, the alphabet, no repeats across
// several refills of the pool.
import { describe, expect, it } from "vitest";
import { randomBase64url, randomHex } from "../../src/kernel/random-ids.js";
import { makeEvent } from "../../src/threads/events.js";

describe("pooled random ids", () => {
  it("have the asked length and alphabet, and do not repeat across refills of the pool", () => {
    const seen = new Set<string>();
    // 3 × 4 KB of the pool.
    for (let i = 0; i < 2_000; i++) {
      const hex = randomHex(6);
      expect(hex).toMatch(/^[0-9a-f]{12}$/);
      seen.add(hex);
    }
    expect(seen.size).toBe(2_000);
    const b64 = randomBase64url(6);
    expect(b64).toMatch(/^[A-Za-z0-9_-]{8}$/);
    expect(() => randomHex(5_000)).toThrow(RangeError);
  });
});

describe("event ids", () => {
  // The database refuses a duplicate id and with it the whole batch it came in. A burst makes
  // thousands of events in one millisecond, where 32 random bits collided in about one run in a
  // thousand of 12,000 events; 64 bits make that about one in a billion billion.
  it("carry the time and 64 random bits, and a burst of 50,000 has no repeat", () => {
    const ids = Array.from({ length: 50_000 }, () => makeEvent("th_1", { type: "route_attached", route: "test:1" }).id);
    for (const id of ids.slice(0, 100)) expect(id).toMatch(/^ev_[0-9a-z]{8}[0-9a-f]{16}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

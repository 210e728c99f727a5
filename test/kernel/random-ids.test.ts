// Ids drawn from the pooled random bytes: the asked length, the alphabet, no repeats across
// several refills of the pool.
import { describe, expect, it } from "vitest";
import { randomBase64url, randomHex } from "../../src/kernel/random-ids.js";

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

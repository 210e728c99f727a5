import { describe, expect, it } from "vitest";
import { LatestWins } from "../../src/platforms/telegram/latest-wins.js";

const tick = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));

describe("LatestWins", () => {
  it("applies one value at a time and collapses those that wait into the newest", async () => {
    const latest = new LatestWins<string>();
    const applied: string[] = [];
    let running = 0;
    const apply = async (value: string) => {
      running++;
      expect(running).toBe(1);
      await tick();
      applied.push(value);
      running--;
    };
    const all = ["v1", "v2", "v3", "v4"].map((value) => latest.submit("m1", value, apply));
    await Promise.all(all);
    expect(applied).toEqual(["v1", "v4"]);
  });

  it("keeps keys independent", async () => {
    const latest = new LatestWins<string>();
    const applied: string[] = [];
    const apply = async (value: string) => void applied.push(value);
    await Promise.all([latest.submit("a", "a1", apply), latest.submit("b", "b1", apply)]);
    expect(applied.sort()).toEqual(["a1", "b1"]);
  });

  it("fails the callers of a failed attempt and still applies a newer value", async () => {
    const latest = new LatestWins<string>();
    const applied: string[] = [];
    const apply = async (value: string) => {
      await tick();
      if (value === "bad") throw new Error("refused");
      applied.push(value);
    };
    const bad = latest.submit("m", "bad", apply);
    await tick(1);
    const good = latest.submit("m", "good", apply);
    await expect(bad).rejects.toThrow("refused");
    await expect(good).resolves.toBeUndefined();
    expect(applied).toEqual(["good"]);
  });
});

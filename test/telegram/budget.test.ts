// The per-chat send budget on a fake clock: Telegram's real limits (1 s per chat, 20 a minute in a
// group, 30 a second overall) without waiting for them.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PlatformError } from "../../src/kernel/errors.js";
import { ChatSendBudget, TELEGRAM_SEND_LIMITS } from "../../src/platforms/telegram/budget.js";

let budget: ChatSendBudget;
let calls: Array<{ chat: string; at: number; label?: string }>;

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
  budget = new ChatSendBudget(TELEGRAM_SEND_LIMITS);
  calls = [];
});

afterEach(() => {
  budget.close();
  vi.useRealTimers();
});

const record = (chat: string, label?: string) => async () => {
  calls.push({ chat, at: Date.now(), label });
  return label;
};

describe("ChatSendBudget", () => {
  it("keeps one second between calls in a private chat, in order", async () => {
    const done = Promise.all([1, 2, 3].map((i) => budget.schedule("111", false, record("111", `m${i}`))));
    await vi.advanceTimersByTimeAsync(5000);
    expect(await done).toEqual(["m1", "m2", "m3"]);
    expect(calls.map((call) => call.at)).toEqual([0, 1000, 2000]);
  });

  it("holds a group to 20 calls a minute", async () => {
    const done = Promise.all(Array.from({ length: 25 }, () => budget.schedule("-100", true, record("-100"))));
    await vi.advanceTimersByTimeAsync(120_000);
    await done;
    const times = calls.map((call) => call.at);
    for (const at of times) expect(times.filter((t) => t >= at && t < at + 60_000).length).toBeLessThanOrEqual(20);
    expect(times[20]).toBeGreaterThanOrEqual(60_000);
  });

  it("holds the whole bot to 30 calls a second across chats", async () => {
    const done = Promise.all(Array.from({ length: 75 }, (_, i) => budget.schedule(String(i + 1), false, record(String(i + 1)))));
    await vi.advanceTimersByTimeAsync(5000);
    await done;
    const times = calls.map((call) => call.at);
    for (const at of times) expect(times.filter((t) => t >= at && t < at + 1000).length).toBeLessThanOrEqual(30);
    expect(Math.max(...times)).toBeGreaterThanOrEqual(2000);
  });

  it("counts the gap from the end of a slow call", async () => {
    const slow = async () => {
      await new Promise((resolve) => setTimeout(resolve, 700));
      calls.push({ chat: "111", at: Date.now() });
    };
    const done = Promise.all([budget.schedule("111", false, slow), budget.schedule("111", false, record("111"))]);
    await vi.advanceTimersByTimeAsync(3000);
    await done;
    expect(calls.map((call) => call.at)).toEqual([700, 1700]);
  });

  it("rejects waiting calls with a typed error when closed", async () => {
    void budget.schedule("111", false, record("111"));
    const waiting = budget.schedule("111", false, record("111"));
    budget.close();
    await expect(waiting).rejects.toBeInstanceOf(PlatformError);
    await expect(budget.schedule("111", false, record("111"))).rejects.toBeInstanceOf(PlatformError);
  });
});

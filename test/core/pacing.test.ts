// Pacing per chat with bursts: a short answer's send and the edit that completes it go at once,
// a stream settles at the sustained rate, windows hold ("N in any period"), Slack-like edits are
// paced apart from posts, the edit gap applies to a growing message only, and a call counts from
// when it ended. Through the outbox with an in-memory platform; the fakes check the same at the wire.
import { describe, expect, it } from "vitest";
import { Outbox } from "../../src/core/delivery/outbox.js";
import { SlidingWindow, TokenBucket } from "../../src/core/delivery/rates.js";
import { silentLogger } from "../../src/kernel/log.js";
import type { MessageRef, OutboundMessage, PacingLimits } from "../../src/platforms/contract.js";
import { TestPlatform } from "../support/test-platform.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const gaps = (calls: Array<{ at: number }>) => calls.slice(1).map((c, i) => c.at - calls[i].at);

function paced(pacing: PacingLimits, editGapMs = 0, windowed = false) {
  const platform = new TestPlatform("paced", { pacing });
  if (windowed) platform.paceKey = () => ({ key: "one", windowed: true });
  return { platform, outbox: new Outbox(platform, silentLogger(), editGapMs) };
}

describe("pacing per chat", () => {
  it("sends a short answer and the edit that completes it at once, though the edit gap is long", async () => {
    const { platform, outbox } = paced({ key: { burst: 3, perSecond: 1 } }, 1_000);
    const route = platform.route("chat");
    const slot = outbox.post(route, { text: "The first" });
    await slot.sent;
    slot.update({ text: "The first words" });
    await sleep(30);
    expect(platform.callLog).toHaveLength(1); // a growing message waits for the gap
    slot.update({ text: "The first words, and the end." }, true);
    await slot.settled();
    expect(platform.callLog.map((c) => c.text)).toEqual(["The first", "The first words, and the end."]);
    expect(platform.callLog[1].at - platform.callLog[0].at).toBeLessThan(200);
  });

  it("keeps the gap between edits of a growing message (min_edit_gap_ms applies)", async () => {
    const { platform, outbox } = paced({ key: { burst: 10, perSecond: 100 } }, 150);
    const slot = outbox.post(platform.route("chat"), { text: "a" });
    for (const text of ["ab", "abc", "abcd"]) {
      await slot.settled();
      slot.update({ text });
    }
    await slot.settled();
    for (const gap of gaps(platform.callLog)) expect(gap).toBeGreaterThanOrEqual(145);
  });

  it("lets the burst go at once, then keeps the sustained rate", async () => {
    const { platform, outbox } = paced({ key: { burst: 3, perSecond: 10 } });
    const route = platform.route("chat");
    await Promise.all([1, 2, 3, 4, 5, 6].map((i) => outbox.post(route, { text: `m${i}` }).settled()));
    const at = platform.callLog.map((c) => c.at);
    expect(at[2] - at[0]).toBeLessThan(60);
    // Past the burst, the k-th call needs k - 2 tokens refilled: a rate over time, not a gap (a
    // late timer's call may be followed closely by the next, as the platform's own bucket allows).
    for (let k = 3; k < at.length; k++) expect(at[k] - at[0]).toBeGreaterThanOrEqual((k - 2) * 100 - 5);
  });

  it("keeps a windowed key to N calls in any window, sends and edits together", async () => {
    const { platform, outbox } = paced({ keyWindow: { calls: 3, windowMs: 300 } }, 0, true);
    const slots = [1, 2, 3, 4].map((i) => outbox.post(platform.route(`r${i}`), { text: `m${i}` }));
    await Promise.all(slots.map((s) => s.settled()));
    slots[0].update({ text: "m1, edited" }, true);
    await slots[0].settled();
    const at = platform.callLog.map((c) => c.at);
    expect(at[2] - at[0]).toBeLessThan(100);
    expect(at[3] - at[0]).toBeGreaterThanOrEqual(295);
    expect(at[4] - at[1]).toBeGreaterThanOrEqual(295);
  });

  it("paces edits apart from posts where the key counts sends only, and edits across all routes by their own window", async () => {
    const { platform, outbox } = paced({ key: { burst: 1, perSecond: 2 }, keyCounts: "sends", platformEdits: { calls: 2, windowMs: 400 } });
    const slots = ["a", "b", "c"].map((id) => outbox.post(platform.route(id), { text: id }));
    await Promise.all(slots.map((s) => s.settled()));
    const started = Date.now();
    for (const slot of slots) slot.update({ text: `${slot.desired.text}!` }, true);
    await Promise.all(slots.map((s) => s.settled()));
    const edits = platform.callLog.filter((c) => c.call === "edit");
    // Each route is its own key: posts are not held by each other, and edits not by the posts' bucket…
    expect(edits[0].at - started).toBeLessThan(100);
    expect(edits[1].at - started).toBeLessThan(100);
    // …but the third edit waits for the window of edits.
    expect(edits[2].at - edits[0].at).toBeGreaterThanOrEqual(395);
  });

  it("counts a call from when it ended, so a slow request never lets the next one in closer", async () => {
    const { platform, outbox } = paced({ key: { burst: 1, perSecond: 10 } });
    const send = platform.send.bind(platform);
    const ended: number[] = [];
    let slow = true;
    platform.send = async (route: string, message: OutboundMessage): Promise<MessageRef> => {
      const ref = await send(route, message);
      if (slow) await sleep(150);
      slow = false;
      ended.push(Date.now());
      return ref;
    };
    const route = platform.route("chat");
    await Promise.all([outbox.post(route, { text: "slow" }), outbox.post(route, { text: "next" })].map((s) => s.settled()));
    expect(platform.callLog[1].at - ended[0]).toBeGreaterThanOrEqual(95);
  });
});

describe("rates", () => {
  it("a token bucket: a burst from rest, then one per interval; what refilled during a call does not count", () => {
    const bucket = new TokenBucket({ burst: 2, perSecond: 10 });
    expect(bucket.delayMs(0)).toBe(0);
    bucket.take(0);
    bucket.ended(0, 0);
    bucket.take(0);
    expect(bucket.delayMs(0)).toBe(100); // the second call's token is spoken for while it runs
    bucket.ended(0, 0);
    expect(bucket.delayMs(0, 2)).toBe(200);
    expect(bucket.delayMs(100)).toBe(0);
    bucket.take(100);
    bucket.ended(100, 150);
    // Its token went at 150, when the bucket had refilled to 1.5: half a token left.
    expect(bucket.delayMs(150)).toBe(50);
    expect(bucket.isFull(1_000)).toBe(true);
  });

  it("a sliding window: N in any window, a call counted from its end, in order", () => {
    const window = new SlidingWindow({ calls: 2, windowMs: 1_000 });
    window.take(0);
    window.take(10);
    expect(window.delayMs(20)).toBe(980);
    window.ended(0, 50);
    // The call that started at 0 now counts from 50: the one from 10 leaves the window first.
    expect(window.delayMs(60)).toBe(950);
    expect(window.delayMs(60, 3)).toBe(Infinity);
    expect(window.isEmpty(1_100)).toBe(true);
  });
});

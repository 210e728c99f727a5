// How the outbox spreads one platform's calls: the platform-wide rate as an even spacing, routes
// served in the order they became ready, one call per event-loop task; and "typing…" kept per
// route, shown once for turns that overlap or follow each other, again after a message cleared it.
import { describe, expect, it, vi } from "vitest";
import { Outbox } from "../../src/core/delivery/outbox.js";
import { PlatformError } from "../../src/kernel/errors.js";
import { silentLogger } from "../../src/kernel/log.js";
import { TestPlatform } from "../support/test-platform.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Counts event-loop turns, and notes in which one each send of the platform started. */
function countTurns(platform: TestPlatform) {
  let turns = 0;
  let ticking = true;
  const tick = () => {
    turns++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const startedIn: number[] = [];
  const send = platform.send.bind(platform);
  platform.send = (route, message) => {
    startedIn.push(turns);
    return send(route, message);
  };
  return { startedIn, stop: () => (ticking = false) };
}

describe("delivery scheduling", () => {
  it("keeps a platform's calls within its rate, serves waiting routes in the order they became ready, one call per event-loop task", async () => {
    const platform = new TestPlatform("paced", { pacing: { platform: { calls: 10, windowMs: 1_000 } } });
    const outbox = new Outbox(platform, silentLogger(), 0);
    const turns = countTurns(platform);
    const routes = Array.from({ length: 6 }, (_, i) => platform.route(`r${i}`));
    const slots = routes.flatMap((route) => [outbox.post(route, { text: `${route} one` }), outbox.post(route, { text: `${route} two` })]);
    await Promise.all(slots.map((s) => s.settled()));
    turns.stop();
    const calls = platform.callLog;
    expect(calls).toHaveLength(12);
    // Ten a second: the eleventh call a second after the first, the twelfth after the second.
    for (let i = 10; i < calls.length; i++) expect(calls[i].at - calls[i - 10].at).toBeGreaterThanOrEqual(999);
    expect(calls[9].at - calls[0].at).toBeLessThan(500);
    // Every route's first message in the order posted, then the second ones: a route that was
    // served goes to the back of the line.
    expect(calls.map((c) => c.text)).toEqual([...routes.map((r) => `${r} one`), ...routes.map((r) => `${r} two`)]);
    expect(new Set(turns.startedIn).size).toBe(12);
  });

  it("after a platform-wide hold, lets the waiting routes go one per event-loop task, in order", async () => {
    const platform = new TestPlatform("held");
    platform.failNext("send", new PlatformError("slow down", { reason: "rate_limited", retryAfterMs: 150, retryScope: "platform" }));
    const outbox = new Outbox(platform, silentLogger(), 0);
    const first = outbox.post(platform.route("first"), { text: "first" });
    await sleep(30);
    expect(platform.callLog).toHaveLength(1); // refused: everything waits now
    const turns = countTurns(platform);
    const others = ["a", "b", "c", "d", "e"].map((id) => outbox.post(platform.route(id), { text: id }));
    await Promise.all([first, ...others].map((s) => s.settled()));
    turns.stop();
    expect(platform.callLog.slice(1).map((c) => c.text)).toEqual(["a", "b", "c", "d", "e", "first"]);
    expect(new Set(turns.startedIn).size).toBe(turns.startedIn.length);
    for (const call of platform.callLog.slice(1)) expect(call.at - platform.callLog[0].at).toBeGreaterThanOrEqual(145);
  });

  it("shows typing once for turns that overlap or follow at once, again after a message cleared it, and repeats it while held", async () => {
    const platform = new TestPlatform("typing", { typingIntervalMs: 120 });
    const outbox = new Outbox(platform, silentLogger(), 0);
    const route = platform.route("chat");
    const releaseA = outbox.keepTyping(route);
    const releaseB = outbox.keepTyping(route);
    expect(platform.typingCalls).toEqual([route]);
    releaseA();
    releaseB();
    releaseB(); // a second release does nothing
    // The indicator still shows: a turn that starts now needs no call.
    const releaseC = outbox.keepTyping(route);
    expect(platform.typingCalls).toHaveLength(1);
    // ... but it is repeated when it would fade, for as long as someone holds it (twice by 240 ms
    // on an idle machine; waited for, since each repeat is timed from the one before).
    await vi.waitFor(() => expect(platform.typingCalls.length).toBeGreaterThanOrEqual(3), { timeout: 3_000 });
    releaseC();
    const afterRelease = platform.typingCalls.length;
    await sleep(300);
    expect(platform.typingCalls).toHaveLength(afterRelease);
    // Faded: a new turn shows it at once. A message sent clears it: the next turn shows it again.
    const releaseD = outbox.keepTyping(route);
    expect(platform.typingCalls).toHaveLength(afterRelease + 1);
    releaseD();
    await outbox.post(route, { text: "answer" }).settled();
    outbox.keepTyping(route)();
    expect(platform.typingCalls).toHaveLength(afterRelease + 2);
  });
});

import { afterEach, describe, expect, it } from "vitest";
import { TestPlatform } from "../support/test-platform.js";
import { startTestBaton, type TestBaton } from "../support/harness.js";

let baton: TestBaton | undefined;
afterEach(async () => {
  await baton?.stop({ cleanup: true });
  baton = undefined;
});

describe("a prompt through the real demo agent", () => {
  it("streams back as one message edited as it grows, on two attached routes", async () => {
    const platform = new TestPlatform();
    baton = await startTestBaton({ adapters: [platform] });
    const a = platform.route("chat-a");
    const b = platform.route("chat-b");
    await platform.say(a, "demo:slow");
    await platform.waitFor(a, /step 3/);
    await platform.say(a, "/stop");
    await platform.waitFor(a, /⏹ Stopped/);
    const first = platform.on(a).find((m) => m.text.startsWith("Working… step 1"))!;
    // Attach a second route to the same thread (what /pickup and /session --switch do).
    const thread = baton.daemon.core.registry.threadForRoute(a)!;
    await baton.daemon.core.registry.attach(b, thread.id);
    await platform.say(a, "second");
    const onA = await platform.waitFor(a, /Turn 2 of session .*: you said "second"/);
    const onB = await platform.waitFor(b, /Turn 2 of session .*: you said "second"/);
    await baton.daemon.core.supervisor.drained(thread.id);
    expect(onB.text).toBe(onA.text);
    // One message per block, edited as the chunks arrived: more than one version, ending in the full text.
    expect(first.history.length).toBeGreaterThan(2);
    expect(first.text).toMatch(/step 3/);
    expect(first.history.at(-1)).toBe(first.text);
    for (const earlier of first.history.slice(0, -1)) expect(first.text.startsWith(earlier)).toBe(true);
    expect(platform.typingCalls).toContain(a);
  });
});

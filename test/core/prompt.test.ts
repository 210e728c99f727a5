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
    await platform.say(a, "hello there");
    const first = await platform.waitFor(a, /Turn 1 of session .*: you said "hello there"/);
    // Attach a second route to the same thread (what /pickup and /session --switch do).
    const thread = baton.daemon.core.registry.threadForRoute(a)!;
    await baton.daemon.core.registry.attach(b, thread.id);
    await platform.say(a, "second");
    const onA = await platform.waitFor(a, /Turn 2 of session .*: you said "second"/);
    const onB = await platform.waitFor(b, /Turn 2 of session .*: you said "second"/);
    expect(onB.text).toBe(onA.text);
    // One message per block, edited as the chunks arrived: more than one version, ending in the full text.
    expect(first.history.length).toBeGreaterThan(1);
    expect(first.history.at(-1)).toBe(first.text);
    for (const earlier of first.history.slice(0, -1)) expect(first.text.startsWith(earlier)).toBe(true);
    expect(platform.typingCalls).toContain(a);
  });
});

// An agent that hangs while starting: every step of a start is time-boxed, a hang is reported like
// a crash and frees its start slot, a start that makes no progress for 10 s gives its slot to the
// next conversation, and /stop ends a starting host (or one waiting for a slot).
import { afterEach, describe, expect, it } from "vitest";
import { startTestBaton, waitUntil, type TestBaton } from "../support/harness.js";
import { TestPlatform } from "../support/test-platform.js";

let baton: TestBaton | undefined;
afterEach(async () => {
  await baton?.stop({ cleanup: true });
  baton = undefined;
});

const HANGING_PROFILES = {
  hang_init: { agent: "demo", env: { BATON_DEMO_HANG: "initialize" } },
  hang_session: { agent: "demo", env: { BATON_DEMO_HANG: "session" } },
};

async function setup(startTimeout: Record<string, string>) {
  const platform = new TestPlatform();
  baton = await startTestBaton({ adapters: [platform], config: { agents: { default: "demo", profiles: HANGING_PROFILES, start_timeout: startTimeout } } });
  return { platform, core: baton.daemon.core };
}

describe("a host that hangs while starting", () => {
  it("is stopped after agents.start_timeout, reported like a crash, and does not hold a start slot", async () => {
    // A healthy agent answers session/new at once; initialize gets room for a loaded machine.
    const { platform, core } = await setup({ initialize: "60s", session: "3s" });
    // More hanging threads than there are start slots (4), then an ordinary one.
    const hung = Array.from({ length: 5 }, (_, i) => platform.route(`hung${i}`));
    for (const route of hung) {
      await platform.say(route, "/new demo+hang_session");
      await platform.say(route, "hello?");
    }
    const ok = platform.route("ok");
    await platform.say(ok, "still working?");
    await platform.waitFor(ok, /you said "still working\?"/, 40_000);
    for (const route of hung) {
      const report = await platform.waitFor(route, /did not answer session\/new within 3 s/, 40_000);
      expect(report.text).toMatch(/Send a message to start the agent again/);
      const thread = core.registry.threadForRoute(route)!;
      expect(core.supervisor.state(thread.id).host).toBe("stopped");
      expect(thread.open).toBe(true);
    }
    expect(core.supervisor.liveCount()).toBe(1);
  }, 90_000);

  it("a fifth conversation behind four starts that hang at initialize is answered within seconds, and told why it waits", async () => {
    const { platform, core } = await setup({ initialize: "60s", session: "60s" });
    const hung = Array.from({ length: 4 }, (_, i) => platform.route(`h${i}`));
    for (const route of hung) {
      await platform.say(route, "/new demo+hang_init");
      await platform.say(route, "hello?");
    }
    await waitUntil(() => core.supervisor.liveCount() === 4);
    const asked = Date.now();
    const fifth = platform.route("fifth");
    await platform.say(fifth, "are you there?");
    await platform.waitFor(
      fifth,
      /⏳ 4 other agents are starting at once, the most Baton starts together; this one starts as soon as one of them is up \(a start that hangs gives way within 10 s\)/,
      10_000,
    );
    await platform.waitFor(fifth, /you said "are you there\?"/, 20_000);
    // The four held their slots for at most 10 s without progress, not their 60 s step timeout.
    expect(Date.now() - asked).toBeLessThan(15_000);
    // They go on trying within their own timeouts.
    for (const route of hung) expect(core.supervisor.state(core.registry.threadForRoute(route)!.id).host).toBe("starting");
  }, 40_000);

  it("an agent that never answers initialize is reported and stopped too", async () => {
    const { platform, core } = await setup({ initialize: "2s" });
    const route = platform.route("init");
    await platform.say(route, "/new demo+hang_init");
    await platform.say(route, "hello?");
    await platform.waitFor(route, /did not answer initialize within 2 s/, 20_000);
    expect(core.supervisor.liveCount()).toBe(0);
  });

  it("/stop ends a host hanging at session open, and one waiting for a start slot", async () => {
    const { platform, core } = await setup({ initialize: "60s", session: "60s" });
    const routes = Array.from({ length: 5 }, (_, i) => platform.route(`s${i}`));
    for (const route of routes) {
      await platform.say(route, "/new demo+hang_session");
      await platform.say(route, "hello?");
    }
    const threads = routes.map((r) => core.registry.threadForRoute(r)!);
    // Four hosts hang in session/new; the fifth waits for one of the four start slots.
    await waitUntil(() => core.supervisor.liveCount() === 4);
    for (const t of threads) expect(core.supervisor.state(t.id).host).toBe("starting");
    for (const route of routes) {
      await platform.say(route, "/stop");
      await platform.waitFor(route, /⏹ Stopped\./, 10_000);
    }
    expect(platform.messages.some((m) => /Nothing is running/.test(m.text))).toBe(false);
    for (const t of threads) expect(core.supervisor.state(t.id).host).toBe("stopped");
    expect(core.supervisor.liveCount()).toBe(0);
  });
});

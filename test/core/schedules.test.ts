// Schedules through the real core and the demo agent: a chat schedule fires into its thread (a
// seconds-field pattern keeps the test short), survives a restart, is skipped with a notice while
// its previous run goes on (one notice per streak), and never runs once its maker is no longer
// allowed. Config schedules too. Chat schedules are bounded: how often, how many per chat and person.
import { afterEach, describe, expect, it } from "vitest";
import { TestPlatform } from "../support/test-platform.js";
import { startTestBaton, type TestBaton } from "../support/harness.js";

const started: TestBaton[] = [];
afterEach(async () => {
  for (const b of started.splice(0)) await b.stop({ cleanup: true });
});

// The harness sets schedule_limits.min_interval to 1 s: these tests use seconds-field patterns.
async function boot(config: Record<string, unknown> = {}, dataDir?: string) {
  const platform = new TestPlatform();
  const baton = await startTestBaton({ adapters: [platform], config, dataDir });
  started.push(baton);
  return { platform, baton, core: baton.daemon.core };
}

const count = (platform: TestPlatform, route: string, pattern: RegExp) => platform.on(route).filter((m) => pattern.test(m.text)).length;

describe("schedules", () => {
  it("fire into the route's thread, are listed, survive a restart and can be removed", async () => {
    const first = await boot();
    const route = first.platform.route("daily");
    await first.platform.say(route, '/schedule add "*/2 * * * * *" nightly report');
    const added = await first.platform.waitFor(route, /⏰ Scheduled `(\w+)`: `\*\/2 \* \* \* \* \*`/);
    const id = /Scheduled `(\w+)`/.exec(added.text)![1];
    await first.platform.waitFor(route, new RegExp(`⏰ Schedule \`${id}\`: nightly report`));
    await first.platform.waitFor(route, /you said "nightly report"/, 15_000);
    await first.platform.say(route, "/schedule list");
    await first.platform.waitFor(route, new RegExp(`• \`${id}\` \`\\*/2 \\* \\* \\* \\* \\*\` \\(.+\\) → nightly report — next: `));
    const thread = first.core.registry.threadForRoute(route)!;
    const dataDir = first.baton.dataDir;
    await first.baton.daemon.stop();
    started.length = 0;

    const second = await boot({}, dataDir);
    await second.platform.waitFor(route, new RegExp(`⏰ Schedule \`${id}\`: nightly report`), 15_000);
    await second.platform.waitFor(route, /you said "nightly report"/, 15_000);
    expect(second.core.registry.threadForRoute(route)!.id).toBe(thread.id);
    await second.platform.say(route, `/schedule rm ${id}`);
    await second.platform.waitFor(route, new RegExp(`Removed schedule \`${id}\``));
    await second.core.supervisor.drained(thread.id);
    const fired = count(second.platform, route, /⏰ Schedule/);
    await new Promise((r) => setTimeout(r, 2_500));
    expect(count(second.platform, route, /⏰ Schedule/)).toBe(fired);
    expect(second.core.registry.schedules()).toEqual([]);
  });

  it("skip runs while the previous one still goes, with one notice per streak, and refuse bad patterns and zones", async () => {
    const { platform } = await boot({ schedules: [{ route: "test:busy", cron: "*/1 * * * * *", prompt: "demo:slow" }] });
    const route = platform.route("busy");
    await platform.waitFor(route, /⏭ Skipping schedule `config-1` \(`\*\/1 \* \* \* \* \*`\) while its previous run is still going/, 15_000);
    // Three more ticks while demo:slow (30 s) goes on: still the one notice.
    await new Promise((r) => setTimeout(r, 3_200));
    expect(count(platform, route, /⏭ Skipping schedule/)).toBe(1);
    await platform.say(route, "/stop");
    await platform.say(route, '/schedule add "every day" x');
    await platform.waitFor(route, /`every day` is not a cron pattern .* Example: `\/schedule add "0 9 \* \* 1-5"/);
    await platform.say(route, '/schedule add --tz Mars/Olympus "0 9 * * *" x');
    await platform.waitFor(route, /`Mars\/Olympus` is not a time zone/);
    await platform.say(route, "/schedule rm config-1");
    await platform.waitFor(route, /comes from the config \(schedules:\); remove it there/);
    await platform.say(route, '/schedule add --tz Europe/Berlin "0 9 * * 1-5" standup');
    await platform.waitFor(route, /`0 9 \* \* 1-5` \(Europe\/Berlin\) → standup — next: .* 09:00/);
  });

  it("removed while a run waits for the thread's turn to end, never run", async () => {
    const { platform } = await boot();
    const route = platform.route("removed-while-busy");
    await platform.say(route, "demo:slow 30");
    await platform.waitFor(route, /Working… step 1/);
    await platform.say(route, '/schedule add "*/1 * * * * *" tick');
    const added = await platform.waitFor(route, /⏰ Scheduled `(\w+)`/);
    const id = /Scheduled `(\w+)`/.exec(added.text)![1];
    // Due meanwhile, its run waits for the slow turn; the schedule goes before that turn ends.
    await new Promise((r) => setTimeout(r, 2_500));
    await platform.say(route, `/schedule rm ${id}`);
    await platform.waitFor(route, new RegExp(`Removed schedule \`${id}\``));
    await platform.say(route, "/stop");
    await platform.waitFor(route, /Stopped/);
    await new Promise((r) => setTimeout(r, 2_500));
    expect(count(platform, route, /⏰ Schedule `|you said "tick"/)).toBe(0);
  });

  it("never run for a user who is no longer allowed", async () => {
    const first = await boot();
    const route = first.platform.route("revoked");
    await first.platform.say(route, '/schedule add "*/2 * * * * *" ping', { id: "test:bob", name: "Bob" });
    await first.platform.waitFor(route, /⏰ Scheduled/);
    const dataDir = first.baton.dataDir;
    await first.baton.daemon.stop();
    started.length = 0;
    // Bob is taken out of access.allow.
    const second = await boot({ access: { allow: ["test:alice"] } }, dataDir);
    await new Promise((r) => setTimeout(r, 4_500));
    expect(count(second.platform, route, /⏰ Schedule `|you said/)).toBe(0);
    expect(second.core.registry.threadForRoute(route)).toBeUndefined();
  });

  it("are bounded: a pattern more often than the minimum interval is refused with why, and so is one more than a chat or a person may have", async () => {
    const { platform, core } = await boot({ schedule_limits: { per_route: 2, per_person: 3 } });
    const route = platform.route("bounded");
    await platform.say(route, '/schedule add "* * * * * *" flood');
    await platform.waitFor(route, /`\* \* \* \* \* \*` would run every 1 s; a schedule may run at most once every 1 min \(schedule_limits\.min_interval in the config\)/);
    await platform.say(route, '/schedule add "*/30 * * * * *" twice a minute');
    await platform.waitFor(route, /would run every 30 s/);
    // Two runs a minute apart are fine; so is an hourly one.
    await platform.say(route, '/schedule add "0,1 9 * * *" morning');
    await platform.waitFor(route, /⏰ Scheduled `\w+`: `0,1 9/);
    await platform.say(route, '/schedule add "0 * * * *" hourly');
    await platform.waitFor(route, /⏰ Scheduled `\w+`: `0 \* \* \* \*`/);
    await platform.say(route, '/schedule add "0 10 * * *" third');
    await platform.waitFor(route, /This chat has 2 schedules, the most one chat may have \(schedule_limits\.per_route\)/);
    // Another chat: Alice's third is fine, her fourth is one more than a person may have.
    const other = platform.route("elsewhere");
    await platform.say(other, '/schedule add "0 11 * * *" third');
    await platform.waitFor(other, /⏰ Scheduled/);
    await platform.say(other, '/schedule add "0 12 * * *" fourth');
    await platform.waitFor(other, /You have 3 schedules, the most one person may have \(schedule_limits\.per_person\)/);
    // Bob has his own count.
    await platform.say(other, '/schedule add "0 12 * * *" bobs', { id: "test:bob", name: "Bob" });
    await platform.waitFor(other, /⏰ Scheduled `\w+`: `0 12 \* \* \*` .* bobs/);
    expect(core.registry.schedules()).toHaveLength(4);
  });
});

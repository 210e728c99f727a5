// Schedules through the real core and the demo agent: a chat schedule fires into its thread (a
// seconds-field pattern keeps the test short), survives a restart, is skipped with a notice while
// its previous run goes on, and never runs once its maker is no longer allowed. Config schedules too.
import { afterEach, describe, expect, it } from "vitest";
import { TestPlatform } from "../support/test-platform.js";
import { startTestBaton, type TestBaton } from "../support/harness.js";

const started: TestBaton[] = [];
afterEach(async () => {
  for (const b of started.splice(0)) await b.stop({ cleanup: true });
});

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

  it("skip a run while the previous one still goes, and refuse bad patterns and zones", async () => {
    const { platform } = await boot({ schedules: [{ route: "test:busy", cron: "*/1 * * * * *", prompt: "demo:slow" }] });
    const route = platform.route("busy");
    await platform.waitFor(route, /⏭ Skipped schedule `config-1` \(`\*\/1 \* \* \* \* \*`\): its previous run is still going\./, 15_000);
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
});

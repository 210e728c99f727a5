// Limits per person (limits.per_person) over the test platform and the demo agent (a real ACP
// process that reports tokens and a running cost, as Claude Code does): the 31st prompt in an hour
// refused with the reset time and not sent; usd_per_day stopping a person once the reported cost
// crosses it; concurrent_turns; admins exempt unless limits.admins; /usage. The clock of limits is
// the test's, moved instead of waited for.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startTestBaton, testConfig, type TestBaton } from "../support/harness.js";
import { TestPlatform } from "../support/test-platform.js";

const ana = { id: "test:ana", name: "Ana" };
const bob = { id: "test:bob", name: "Bob" };
const ACCESS = { allow: [bob.id], roles: { admin: [ana.id] } };
/** 07:37 UTC: the hour's count starts again at 08:00, in 23 minutes. */
const START = Date.UTC(2026, 11, 5, 7, 37, 0);
const TURN_MS = 20_000;

let baton: TestBaton | undefined;
afterEach(async () => {
  await baton?.stop({ cleanup: true });
  baton = undefined;
});

async function start(limits: Record<string, unknown>, clock: { now: number }) {
  const platform = new TestPlatform("team");
  const config = { access: ACCESS, limits, time_zone: "UTC" };
  baton = await startTestBaton({ adapters: [platform], config, now: () => clock.now });
  return { platform, config };
}

const answered = (platform: TestPlatform, route: string, text: string) => platform.on(route).some((m) => m.text.includes(`you said "${text}"`));

describe("limits per person", () => {
  it("refuses the 31st prompt in an hour with when the count resets, sends it nowhere, and takes prompts again in the next hour", async () => {
    const clock = { now: START };
    const { platform } = await start({ per_person: { turns_per_hour: 30 } }, clock);
    const route = platform.route("room");
    for (let i = 1; i <= 30; i++) await platform.say(route, `p${i}`, bob);
    await platform.waitFor(route, /you said "p30"/, TURN_MS * 3);
    await platform.say(route, "p31", bob);
    const refusal = await platform.waitFor(route, /turns_per_hour/);
    expect(refusal.text).toBe(
      "⏳ You have reached your limit of 30 prompts to agents an hour (limits.per_person.turns_per_hour). It resets at 08:00 UTC, in 23 min. This message was not sent to the agent.",
    );
    for (let i = 1; i <= 30; i++) expect(answered(platform, route, `p${i}`)).toBe(true);

    // Another person's count is their own.
    await platform.say(route, "from ana", ana);
    await platform.waitFor(route, /you said "\[Ana\] from ana"/, TURN_MS);

    clock.now = Date.UTC(2026, 11, 5, 8, 0, 5);
    await platform.say(route, "p32", bob);
    await platform.waitFor(route, /you said "\[Bob\] p32"/, TURN_MS);
    expect(platform.transcript(route)).not.toMatch(/you said "(\[Bob\] )?p31"/);
  });

  it("stops a person once the cost their agent reported crosses usd_per_day, until the next day", async () => {
    const clock = { now: START };
    // The demo agent reports its session's running cost after each turn: $0.0012, $0.0024, …
    const { platform } = await start({ per_person: { usd_per_day: 0.005 } }, clock);
    const route = platform.route("room");
    for (let i = 1; i <= 5; i++) {
      await platform.say(route, `c${i}`, bob);
      await platform.waitFor(route, (m) => m.text.includes(`you said "c${i}"`), TURN_MS);
    }
    // Each turn counts what it added to the running total ($0.0012), not the total: five turns are $0.0060.
    await until(async () => {
      await platform.say(route, "/usage", bob);
      return platform.on(route).some((m) => m.text.includes("Cost today: $0.0060 of $0.0050"));
    });
    await platform.say(route, "c6", bob);
    const refusal = await platform.waitFor(route, /usd_per_day/);
    expect(refusal.text).toBe(
      "⏳ Your turns have cost $0.0060 today: your limit is $0.0050 a day (limits.per_person.usd_per_day). It resets at 00:00 UTC, in 16 h 23 min. This message was not sent to the agent.",
    );
    clock.now = Date.UTC(2026, 11, 6, 0, 1, 0);
    await platform.say(route, "c7", bob);
    await platform.waitFor(route, (m) => m.text.includes('you said "c7"'), TURN_MS);
    expect(platform.transcript(route)).not.toContain('you said "c6"');
  });

  it("holds a person to concurrent_turns across threads; a place frees when the turn ends", async () => {
    const clock = { now: START };
    const { platform } = await start({ per_person: { concurrent_turns: 1 } }, clock);
    const first = platform.route("one");
    const second = platform.route("two");
    await platform.say(first, "demo:slow 20", bob);
    await platform.waitFor(first, /Working… step 1/, TURN_MS);
    await platform.say(second, "meanwhile", bob);
    const refusal = await platform.waitFor(second, /concurrent_turns/);
    expect(refusal.text).toBe(
      "⏳ You already have 1 turn running or queued: your limit is 1 at once (limits.per_person.concurrent_turns). This message was not sent to the agent. Send it again when one ends, or /stop one.",
    );
    await platform.say(first, "/stop", bob);
    await platform.waitFor(first, /Stopped/, TURN_MS);
    await until(async () => {
      await platform.say(second, "again", bob);
      return platform.on(second).some((m) => m.text.includes('you said "again"'));
    });
    expect(platform.transcript(second)).not.toContain('you said "meanwhile"');
  });

  it("lets admins past the limits unless limits.admins is true; /usage shows a member their own use and an admin everyone's", async () => {
    const clock = { now: START };
    const limits = { per_person: { turns_per_hour: 2 } };
    const { platform, config } = await start(limits, clock);
    const route = platform.route("room");
    for (const text of ["a1", "a2", "a3"]) await platform.say(route, text, ana);
    await platform.waitFor(route, /you said "a3"/, TURN_MS);
    await platform.say(route, "b1", bob);
    await platform.waitFor(route, /you said "\[Bob\] b1"/, TURN_MS);

    await platform.say(route, "/usage", bob);
    const mine = await platform.waitFor(route, /Your use/);
    expect(mine.text).toMatch(/\(`test:bob`\)\nTurns this hour: 1 of 2 · counts again from 0 at 08:00 UTC, in 23 min/);
    expect(mine.text).toMatch(/Tokens today: [\d,]+\n/);
    expect(mine.text).not.toContain("test:ana");

    await platform.say(route, "/usage", ana);
    const all = await platform.waitFor(route, (m) => m.text.includes("(`test:ana`)"));
    expect(all.text).toContain("Turns this hour: 3 of 2");
    expect(all.text).toContain("The limits do not stop you: admins are exempt (limits.admins: false).");
    expect(all.text).toMatch(/\*\*Everyone today\*\*\n- `test:bob`: 1 turn this hour · \$0\.\d{4} · [\d,]+ tokens today/);

    const report = baton!.daemon.reload(() => testConfig({ config: { ...config, limits: { ...limits, admins: true } } }));
    expect(report).toMatchObject({ ok: true });
    await platform.say(route, "a4", ana);
    await platform.waitFor(route, /You have reached your limit of 2 prompts to agents an hour/);
    expect(platform.transcript(route)).not.toContain('you said "[Ana] a4"');
  });
});

describe("limits per person: schedules", () => {
  it("counts a chat schedule's runs toward its maker; over a limit a run does not start, and the chat hears it once", async () => {
    const clock = { now: START };
    const platform = new TestPlatform("team");
    const config = { access: { ...ACCESS, commands: { schedule: "member" } }, limits: { per_person: { turns_per_hour: 2 } }, time_zone: "UTC" };
    baton = await startTestBaton({ adapters: [platform], config, now: () => clock.now });
    const route = platform.route("room");
    await platform.say(route, "hello", bob);
    await platform.waitFor(route, /you said "hello"/, TURN_MS);
    await platform.say(route, '/schedule add "*/2 * * * * *" tick', bob);
    await platform.waitFor(route, /you said "tick"/, TURN_MS);
    const held = await platform.waitFor(route, /did not run/, TURN_MS);
    expect(held.text).toMatch(
      /^⏭ Schedule `\w+` did not run: ⏳ `test:bob` has reached their limit of 2 prompts to agents an hour \(limits\.per_person\.turns_per_hour\)\. It resets at 08:00 UTC, in 23 min\. It runs again once the limit allows\.$/,
    );
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    const count = (pattern: RegExp) => platform.on(route).filter((m) => pattern.test(m.text)).length;
    expect(count(/did not run/)).toBe(1);
    expect(count(/you said "tick"/)).toBe(1);
    clock.now = Date.UTC(2026, 11, 5, 8, 0, 5);
    await platform.waitFor(route, (m) => count(/you said "tick"/) >= 2 && m.text.includes('you said "tick"'), TURN_MS);
  });
});

describe("limits per person: subagents", () => {
  it("starts no subagents whose rounds would take the requester past turns_per_hour; the agent is told why", async () => {
    const clock = { now: START };
    const workspace = mkdtempSync(join(tmpdir(), "baton-limits-ws-"));
    try {
      const platform = new TestPlatform("team");
      const config = { access: ACCESS, limits: { per_person: { turns_per_hour: 2 } }, time_zone: "UTC", workspaces: { roots: [workspace], default: workspace } };
      baton = await startTestBaton({ adapters: [platform], config, cwd: workspace, now: () => clock.now });
      const route = platform.route("room");
      await platform.say(route, "demo:subagents", bob);
      const answer = await platform.waitFor(route, /initialize_subagents error/, 60_000);
      expect(answer.text).toContain(
        "No subagents were started: they would take test:bob, whose prompt started this turn, past their limit of 2 turns an hour (limits.per_person.turns_per_hour; each subagent's round is a turn of theirs). It resets at 08:00 UTC, in 23 min.",
      );
      expect(baton.daemon.core.registry.threadForRoute(route)!.subagents).toEqual([]);
    } finally {
      await baton?.stop({ cleanup: true });
      baton = undefined;
      rmSync(workspace, { recursive: true, force: true });
    }
  });

  it("counts a subagent's rounds and cost toward the person whose prompt started them", async () => {
    const clock = { now: START };
    const workspace = mkdtempSync(join(tmpdir(), "baton-limits-ws-"));
    try {
      const platform = new TestPlatform("team");
      const config = { access: ACCESS, limits: { per_person: { usd_per_day: 0.003, turns_per_hour: 10 } }, time_zone: "UTC", workspaces: { roots: [workspace], default: workspace } };
      baton = await startTestBaton({ adapters: [platform], config, cwd: workspace, now: () => clock.now });
      const route = platform.route("room");
      await platform.say(route, "demo:subagents", bob);
      await platform.waitFor(route, /Subagent reports:/, 90_000);
      // The host's turn and each subagent's round cost $0.0012 (each a session of its own): $0.0036 in all, three turns.
      await until(async () => {
        await platform.say(route, "/usage", bob);
        return platform.on(route).some((m) => m.text.includes("Turns this hour: 3 of 10") && m.text.includes("Cost today: $0.0036 of $0.0030"));
      });
      await platform.say(route, "one more", bob);
      await platform.waitFor(route, /Your turns have cost \$0\.0036 today: your limit is \$0\.0030 a day/);
    } finally {
      await baton?.stop({ cleanup: true });
      baton = undefined;
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});

async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 200));
  }
}

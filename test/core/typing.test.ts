// Typing as a head start, in the core: someone allowed typing where a thread's agent is live and
// idle keeps it from idling out meanwhile; once they stop (their last signal 10 s old, as
// Discord's "typing" fades), it idles out as before. Where the
// thread's agent cannot open its earlier session again (no session/resume, no session/load),
// typing makes the spare ready instead, and the message that follows starts over on it, the person
// told so. Real demo agent processes.
import { afterEach, describe, expect, it } from "vitest";
import { TestPlatform } from "../support/test-platform.js";
import { startTestBaton, waitUntil, type TestBaton } from "../support/harness.js";
import { startSpareBaton } from "../support/spare-baton.js";

const started: TestBaton[] = [];
afterEach(async () => {
  for (const b of started.splice(0)) await b.stop({ cleanup: true });
});

const IDLE_MS = 1_000;
const TYPING_EVERY_MS = 300;
/** How long one typing signal keeps an agent (Discord shows a person typing for about 10 s). */
const TYPING_HOLD_MS = 10_000;
/** The demo agent as an agent that advertises neither session/resume nor session/load. */
const CANNOT_REOPEN = { BATON_DEMO_NO_RESUME: "1", BATON_DEMO_NO_LOAD: "1" };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("typing", () => {
  it("keeps a live idle agent from idling out while someone allowed types; a stranger's typing does not", async () => {
    const platform = new TestPlatform();
    const baton = await startTestBaton({ adapters: [platform], config: { agents: { default: "demo", idle_shutdown: IDLE_MS } } });
    started.push(baton);
    const core = baton.daemon.core;
    const route = platform.route("chat");
    await platform.say(route, "hello");
    await platform.waitFor(route, /Turn 1/);
    const thread = core.registry.threadForRoute(route)!;
    const host = core.supervisor.host(thread.id)!;
    await core.supervisor.drained(thread.id);

    // Twice the idle time, typing all along.
    let lastTyping = 0;
    for (let t = 0; t < 2 * IDLE_MS; t += TYPING_EVERY_MS) {
      core.handleTyping({ route, user: { id: "test:alice" } });
      lastTyping = Date.now();
      await sleep(TYPING_EVERY_MS);
    }
    expect(core.supervisor.host(thread.id)).toBe(host);

    // Each typing signal holds the agent as long as the platform shows it (10 s), then
    // agents.idle_shutdown applies again. A stranger typing all along keeps nothing alive.
    while (core.supervisor.host(thread.id) !== undefined && Date.now() - lastTyping < TYPING_HOLD_MS + 5 * IDLE_MS) {
      core.handleTyping({ route, user: { id: "test:mallory" } });
      await sleep(TYPING_EVERY_MS);
    }
    expect(core.supervisor.host(thread.id)).toBeUndefined();
    expect(Date.now() - lastTyping).toBeGreaterThanOrEqual(TYPING_HOLD_MS);
  });
});

describe("an agent that cannot open its earlier session", () => {
  /** A thread answered once, its agent and the unused spare idled out since. */
  async function idledThread() {
    const bed = await startSpareBaton(started, { idle_shutdown: IDLE_MS }, CANNOT_REOPEN);
    const { core, platform, spare, thread } = bed;
    const route = platform.route("chat");
    await platform.say(route, "hello");
    await platform.waitFor(route, /Turn 1 of session .*: you said "hello"/);
    // A copy: the thread's record changes as it goes.
    const before = { ...thread(route) };
    await waitUntil(() => core.supervisor.host(before.id) === undefined && spare() === undefined, 10_000);
    return { ...bed, route, before };
  }

  it("typing in its idled thread makes the spare ready (no resume tried); the message takes the spare's process and says it started over", async () => {
    const { core, platform, logs, readySession, hostStarts, thread, route, before } = await idledThread();
    core.handleTyping({ route, user: { id: "test:mallory" } });
    core.handleTyping({ route, user: { id: "test:alice" } });
    const spare = await readySession();
    const pid = spare.pid;
    expect(logs.filter((l) => l.msg.startsWith("someone is typing"))).toEqual([]);
    expect(hostStarts()).toHaveLength(1);

    await platform.say(route, "back again");
    await platform.waitFor(route, /^ℹ️ Baton demo agent cannot resume sessions over ACP; started a new session\. It starts from a brief of session \w{8}\.$/);
    // A new session, handed the brief of the old one ahead of the person's words.
    const answer = await platform.waitFor(route, /^Turn 1 of session [\w-]+: you said "\[embedded [\s\S]*back again"$/);
    expect(answer.text).toContain(`[baton-handoff from=demo session=${before.session}]`);
    // The spare's session made ahead is the new one: no session/new waited for.
    expect(hostStarts().at(-1)).toMatchObject({ msg: "agent host started on the spare process", thread: before.id, pid, how: "new-after-failed-resume", session_ahead: true, session: spare.session });
    expect(thread(route).session).not.toBe(before.session);
  });

  it("with no spare (it idled out too) and no typing, the message starts a process of its own, told the same", async () => {
    const { platform, spare, hostStarts, thread, route, before } = await idledThread();
    await platform.say(route, "back again");
    await platform.waitFor(route, /^ℹ️ Baton demo agent cannot resume sessions over ACP; started a new session\. It starts from a brief of session \w{8}\.$/);
    await platform.waitFor(route, /^Turn 1 of session [\w-]+: you said "\[embedded [\s\S]*back again"$/);
    expect(hostStarts().at(-1)).toMatchObject({ msg: "agent host started", thread: before.id, how: "new-after-failed-resume" });
    expect(thread(route).session).not.toBe(before.session);
    expect(spare()?.pid).not.toBe(hostStarts().at(-1)!.pid);
  });
});

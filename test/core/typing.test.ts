// Typing as a head start, in the core: someone allowed typing where a thread's agent is live and
// idle keeps it from idling out meanwhile; once they stop, it idles out as before. Real demo agent.
import { afterEach, describe, expect, it } from "vitest";
import { TestPlatform } from "../support/test-platform.js";
import { startTestBaton, waitUntil, type TestBaton } from "../support/harness.js";

const started: TestBaton[] = [];
afterEach(async () => {
  for (const b of started.splice(0)) await b.stop({ cleanup: true });
});

const IDLE_MS = 1_000;
const TYPING_EVERY_MS = 300;
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
    for (let t = 0; t < 2 * IDLE_MS; t += TYPING_EVERY_MS) {
      core.handleTyping({ route, user: { id: "test:alice" } });
      await sleep(TYPING_EVERY_MS);
    }
    expect(core.supervisor.host(thread.id)).toBe(host);

    // A stranger typing keeps nothing alive.
    for (let t = 0; t < 2 * IDLE_MS; t += TYPING_EVERY_MS) {
      core.handleTyping({ route, user: { id: "test:mallory" } });
      await sleep(TYPING_EVERY_MS);
    }
    await waitUntil(() => core.supervisor.host(thread.id) === undefined, 5_000);
  });
});

// Agent processes on this machine run below Baton's own CPU priority (agents.nice), so an agent's
// builds and test suites cannot starve the chat: the thread's host and the spare process started
// ahead, read back from the kernel; agents.nice: 0 keeps Baton's priority. (A host on another
// machine is ssh, carrying Baton's own traffic: test/machines/remote.test.ts sees it keep Baton's.)
import { getPriority } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { startTestBaton, waitUntil, type TestBaton } from "../support/harness.js";
import { TestPlatform } from "../support/test-platform.js";

const started: TestBaton[] = [];
afterEach(async () => {
  for (const baton of started.splice(0)) await baton.stop({ cleanup: true });
});

/** The test runs Baton in its own process: Baton's priority is this process's. */
const own = getPriority();
const below = (by: number) => Math.min(19, own + by);

async function hostPriority(agents: Record<string, unknown>) {
  const platform = new TestPlatform();
  const baton = await startTestBaton({ adapters: [platform], config: { agents: { default: "demo", ...agents } } });
  started.push(baton);
  const core = baton.daemon.core;
  const route = platform.route("nice");
  await platform.say(route, "hello");
  await platform.waitFor(route, /you said "hello"/);
  const pid = core.supervisor.host(core.registry.threadForRoute(route)!.id)!.pid!;
  return { core, priority: getPriority(pid) };
}

describe("agent processes' CPU priority", () => {
  it("is 10 below Baton's by default, for the thread's host and the spare process", async () => {
    const { core, priority } = await hostPriority({ spare_host: true });
    expect(priority).toBe(below(10));
    await waitUntil(() => core.supervisor.spareState()?.state === "ready", 20_000);
    expect(getPriority(core.supervisor.spareState()!.pid!)).toBe(below(10));
  });

  it("follows agents.nice, and 0 keeps Baton's own", async () => {
    expect((await hostPriority({ nice: 3 })).priority).toBe(below(3));
    expect((await hostPriority({ nice: 0 })).priority).toBe(own);
  });
});

// Subagents under control: /stop ends the thread's agent and all its subagents; they count against
// agents.max_live_hosts and the ones that do not fit wait in a queue; asking for more than
// agents.subagents.max_per_thread is refused with the limit named.
import { afterEach, describe, expect, it, vi } from "vitest";
import { bootSubagents, cleanup, demoAgentCount, MULTI_AGENT_MS } from "./helpers.js";

vi.setConfig({ testTimeout: 240_000 });
afterEach(cleanup);

async function until(check: () => boolean, timeoutMs = MULTI_AGENT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("subagents under control", () => {
  it("/stop cancels the host's turn and every subagent; their processes end", async () => {
    const { platform, core } = await bootSubagents();
    const route = platform.route("stop");
    const slow = JSON.stringify({
      mode: "parallel",
      subagents: [
        { name: "alpha", task: "demo:slow=400" },
        { name: "beta", task: "demo:slow=400" },
      ],
    });
    await platform.say(route, `demo:subagents ${slow}`);
    await platform.waitFor(route, (m) => /`alpha` · demo · running · Working/.test(m.text) && /`beta` · demo · running · Working/.test(m.text), MULTI_AGENT_MS);
    expect(demoAgentCount()).toBe(3);
    await platform.say(route, "/stop");
    await platform.waitFor(route, /⏹ Stopped\./, MULTI_AGENT_MS);
    const thread = core.registry.threadForRoute(route)!;
    await until(() => thread.subagents.every((s) => s.state === "cancelled"));
    expect(thread.subagents.map((s) => s.note)).toEqual(["stopped with /stop", "stopped with /stop"]);
    await platform.waitFor(route, (m) => /⏹ `alpha` · demo · cancelled/.test(m.text) && /⏹ `beta` · demo · cancelled/.test(m.text));
    // Only the thread's own agent is left, idle; no subagent process lives on.
    await until(() => demoAgentCount() === 1);
    expect(core.subagents.liveCount()).toBe(0);
  });

  it("subagents count against max_live_hosts: the third waits queued until a slot frees, then runs", async () => {
    const { platform, core } = await bootSubagents({ config: { agents: { default: "demo", max_live_hosts: 3 } } });
    const route = platform.route("limit");
    const three = JSON.stringify({
      mode: "parallel",
      subagents: [
        { name: "alpha", task: "demo:slow=6 Count" },
        { name: "beta", task: "demo:slow=6 Count" },
        { name: "gamma", task: "Name a tree" },
      ],
    });
    let most = 0;
    const sampler = setInterval(() => (most = Math.max(most, demoAgentCount())), 100);
    try {
      await platform.say(route, `demo:subagents ${three}`);
      const answer = await platform.waitFor(route, /Subagent reports:/, MULTI_AGENT_MS);
      expect(answer.text).toContain("- gamma (done): gamma answers “Name a tree”.");
      expect(answer.text).toContain("- alpha (done): alpha answers “Count”.");
    } finally {
      clearInterval(sampler);
    }
    const block = platform.on(route).find((m) => /\*\*Subagents\*\*/.test(m.text))!;
    expect(block.history.some((t) => /`alpha` · demo · running/.test(t) && /🕓 `gamma` · demo · queued/.test(t))).toBe(true);
    expect(most).toBeLessThanOrEqual(3);
    expect(core.subagents.liveCount()).toBe(0);
  });

  it("asking for more than agents.subagents.max_per_thread is refused, naming the limit", async () => {
    const { platform, core } = await bootSubagents({ config: { agents: { default: "demo", subagents: { max_per_thread: 2 } } } });
    const route = platform.route("max");
    const three = JSON.stringify({ mode: "brainstorming", task: "Name a river", subagents: [{ name: "a" }, { name: "b" }, { name: "c" }] });
    await platform.say(route, `demo:subagents ${three}`);
    const refused = await platform.waitFor(route, /initialize_subagents error:/, MULTI_AGENT_MS);
    expect(refused.text).toContain("at most 2 subagents queued or running at once (agents.subagents.max_per_thread in the Baton config); 0 are and you asked for 3 more");
    expect(core.registry.threadForRoute(route)!.subagents).toEqual([]);
    // Brainstorming within the limit: the same question to each, answers side by side.
    await platform.say(route, `demo:subagents ${JSON.stringify({ mode: "brainstorming", task: "Name a river", subagents: [{ name: "a" }, { name: "b" }] })}`);
    const answer = await platform.waitFor(route, /Subagent reports:/, MULTI_AGENT_MS);
    expect(answer.text).toContain("- a (done): a answers “Name a river”.\n- b (done): b answers “Name a river”.");
    const thread = core.registry.threadForRoute(route)!;
    expect(thread.subagents.map((s) => `${s.name}:${s.state}`)).toEqual(["a:done", "b:done"]);
    // Finished subagents stay listed until the thread's next multi-agent turn.
    await platform.say(route, `demo:subagents ${JSON.stringify({ mode: "parallel", subagents: [{ name: "c", task: "Name a lake" }] })}`);
    await platform.waitFor(route, /- c \(done\): c answers “Name a lake”\./, MULTI_AGENT_MS);
    expect(thread.subagents.map((s) => `${s.name}:${s.state}`)).toEqual(["c:done"]);
    expect(platform.on(route).filter((m) => /\*\*Subagents\*\*/.test(m.text))).toHaveLength(2);
  });
});

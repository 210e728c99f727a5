// A thread's agent starts subagents through Baton's MCP tools and collects their reports: the
// demo agent as host (calling the tools over the MCP server it got in session/new) and as each
// subagent, every one a real ACP process.
import { afterEach, describe, expect, it, vi } from "vitest";
import { bootSubagents, cleanup, MULTI_AGENT_MS } from "./helpers.js";

vi.setConfig({ testTimeout: 120_000 });
afterEach(cleanup);

describe("subagents", () => {
  it("parallel: two subagents report back into the host's answer; the chat shows one status block; /status lists them", async () => {
    const { platform, core } = await bootSubagents();
    const route = platform.route("par");
    await platform.say(route, "demo:subagents");
    const answer = await platform.waitFor(route, /Subagent reports:/, MULTI_AGENT_MS);
    expect(answer.text).toMatch(/- alpha \(done\): alpha answers “Name a colour”\./);
    expect(answer.text).toMatch(/- beta \(done\): beta answers “Name a fruit”\./);
    const thread = core.registry.threadForRoute(route)!;
    const subs = thread.subagents;
    expect(subs.map((s) => [s.name, s.state, s.agent])).toEqual([["alpha", "done", "demo"], ["beta", "done", "demo"]]);
    expect(subs.every((s) => s.session && s.session !== thread.session)).toBe(true);
    const blocks = platform.on(route).filter((m) => /\*\*Subagents\*\*/.test(m.text));
    expect(blocks).toHaveLength(1);
    expect(blocks[0].text).toMatch(/`alpha` · demo · done/);
    console.log(platform.transcript(route));
    await platform.say(route, "/status");
    await platform.waitFor(route, /\*\*Subagents:\*\*\n- `alpha` · demo · done\n- `beta` · demo · done/);
  });
});

// Each agent's MCP token names its own thread: one thread's agent cannot see, wait for or cancel
// another thread's subagents. Here the agents take no HTTP MCP servers, so Baton hands them the
// stdio forwarder (`baton mcp`) with their token in its environment.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { callTool, httpClient } from "../../pickup/helpers.js";
import { HostTokens, type McpCaller } from "../../../src/core/tool-calls.js";
import { bootSubagents, cleanup, MULTI_AGENT_MS } from "./helpers.js";

vi.setConfig({ testTimeout: 240_000 });
let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
  vi.restoreAllMocks();
  await cleanup();
});

/** Every token Baton issues to an agent, with whom it names. */
function recordTokens(): Array<{ caller: McpCaller; token: string }> {
  const issued: Array<{ caller: McpCaller; token: string }> = [];
  const issue = HostTokens.prototype.issue;
  vi.spyOn(HostTokens.prototype, "issue").mockImplementation(function (this: HostTokens, caller: McpCaller) {
    const result = issue.call(this, caller);
    issued.push({ caller, token: result.token });
    return result;
  });
  return issued;
}

describe("subagents belong to their thread", () => {
  it("another thread's agent cannot reach them: each token names its own thread and dies with its process; a terminal's MCP client gets no subagent tools", async () => {
    const issued = recordTokens();
    const { platform, core, baton } = await bootSubagents({ env: { BATON_DEMO_NO_MCP_HTTP: "1" } });
    const a = platform.route("a");
    const b = platform.route("b");
    await platform.say(a, `demo:subagents ${JSON.stringify({ mode: "parallel", subagents: [{ name: "alpha", task: "demo:slow=400" }] })}`);
    await platform.waitFor(a, /`alpha` · demo · running · Working/, MULTI_AGENT_MS);

    await platform.say(b, `demo:mcp wait_for_subagents ${JSON.stringify({ names: ["alpha"], timeout_s: 1 })}`);
    await platform.waitFor(b, /wait_for_subagents error: This thread has no subagents\./, MULTI_AGENT_MS);
    await platform.say(b, `demo:mcp cancel_subagents ${JSON.stringify({ names: ["alpha"] })}`);
    await platform.waitFor(b, /cancel_subagents error: This thread has no subagents\./, MULTI_AGENT_MS);
    // b's own multi-agent turn is its own: a name a's agent uses is free here.
    await platform.say(b, `demo:subagents ${JSON.stringify({ mode: "parallel", subagents: [{ name: "alpha", task: "Name a bird" }] })}`);
    await platform.waitFor(b, /- alpha \(done\): alpha answers “Name a bird”\./, MULTI_AGENT_MS);

    const threadA = core.registry.threadForRoute(a)!;
    expect(threadA.subagents.map((s) => [s.name, s.state])).toEqual([["alpha", "running"]]);
    expect(platform.transcript(a)).not.toContain("Name a bird");

    // The data dir's own token (a terminal's `baton mcp`) is no thread's agent.
    client = await httpClient(baton.dataDir);
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain("prepare_handover");
    expect(tools).not.toContain("wait_for_subagents");
    const refused = await callTool(client, "cancel_subagents", {});
    expect(refused.isError).toBe(true);
    expect(threadA.subagents[0].state).toBe("running");

    // At the wire: each agent's token speaks for its own thread only, and dies with its process.
    const threadB = core.registry.threadForRoute(b)!;
    const tokenOf = (thread: string) => issued.find((i) => i.caller.thread === thread && !i.caller.subagent)!.token;
    expect(issued.find((i) => i.caller.subagent === "alpha")?.caller).toEqual({ machine: "local", thread: threadA.id, subagent: "alpha" });
    await client.close();
    client = await httpClient(baton.dataDir, tokenOf(threadA.id));
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("wait_for_subagents");
    const seen = await callTool(client, "wait_for_subagents", { names: ["alpha"], timeout_s: 0.1 });
    expect(seen.data).toMatchObject({ finished: 0, total: 1, subagents: [{ name: "alpha", state: "running" }] });
    await client.close();
    client = await httpClient(baton.dataDir, tokenOf(threadB.id));
    // The same name under b's token is b's own alpha.
    const theirs = await callTool(client, "wait_for_subagents", { names: ["alpha"], timeout_s: 0.1 });
    expect(theirs.data).toMatchObject({ finished: 1, subagents: [{ name: "alpha", state: "done", session_id: threadB.subagents[0].session }] });
    expect(theirs.text).toContain("alpha answers “Name a bird”.");
    await client.close();
    client = undefined;
    await platform.say(b, "/close");
    await platform.waitFor(b, /Closed thread/);
    await expect(httpClient(baton.dataDir, tokenOf(threadB.id))).rejects.toThrow();

    await platform.say(a, "/stop");
    await platform.waitFor(a, /⏹ `alpha` · demo · cancelled/, MULTI_AGENT_MS);
  });
});

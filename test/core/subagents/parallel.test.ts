// A thread's agent starts subagents through Baton's MCP tools and collects their reports: the
// demo agent as host (calling the tools over the MCP server it got in session/new) and as each
// subagent, every one a real ACP process.
import { afterEach, describe, expect, it, vi } from "vitest";
import { TestPlatform } from "../../support/test-platform.js";
import { DemoSessionStore, demoSessionsDir } from "../../../src/agents/demo/store.js";
import { bootSubagents, cleanup, MULTI_AGENT_MS } from "./helpers.js";

vi.setConfig({ testTimeout: 240_000 });
afterEach(cleanup);

const COLLABORATION = JSON.stringify({
  mode: "collaboration",
  task: "Pick a picnic.",
  subagents: [
    { name: "alpha", task: "Name a colour" },
    { name: "beta", task: "Name a fruit" },
  ],
});

describe("multi-agent turns", () => {
  it("parallel: two subagents report back into the host's answer; the chat shows one status block; /status lists them", async () => {
    const { platform, core } = await bootSubagents();
    const route = platform.route("par");
    await platform.say(route, "demo:subagents");
    const answer = await platform.waitFor(route, /Subagent reports:/, MULTI_AGENT_MS);
    expect(answer.text).toMatch(/- alpha \(done\): alpha answers “Name a colour”\./);
    expect(answer.text).toMatch(/- beta \(done\): beta answers “Name a fruit”\./);
    const thread = core.registry.threadForRoute(route)!;
    expect(thread.subagents.map((s) => [s.name, s.state, s.agent, s.mode])).toEqual([
      ["alpha", "done", "demo", "parallel"],
      ["beta", "done", "demo", "parallel"],
    ]);
    // Each subagent had a session of its own.
    const sessions = thread.subagents.map((s) => s.session);
    expect(new Set([...sessions, thread.session]).size).toBe(3);
    // One compact block for the multi-agent turn, edited as it went, not the subagents' streams.
    const final = "**Subagents** (parallel)\n✅ `alpha` · demo · done\n✅ `beta` · demo · done";
    const block = await platform.waitFor(route, (m) => m.text === final);
    expect(platform.on(route).filter((m) => /\*\*Subagents\*\*/.test(m.text))).toEqual([block]);
    expect(block.history[0]).toBe("**Subagents** (parallel)\n🕓 `alpha` · demo · queued\n🕓 `beta` · demo · queued");
    expect(platform.transcript(route)).not.toContain("[Baton subagent]");
    await platform.say(route, "/status");
    await platform.waitFor(route, /\*\*Subagents:\*\*\n- `alpha` · demo · done\n- `beta` · demo · done/);
  });

  it("collaboration: the second round sees the first round's reports, in the same sessions", async () => {
    const { platform, core, baton } = await bootSubagents();
    const route = platform.route("collab");
    await platform.say(route, `demo:subagents ${COLLABORATION}`);
    const answer = await platform.waitFor(route, /Subagent reports:/, MULTI_AGENT_MS);
    expect(answer.text).toContain("- alpha (done): alpha answers “Name a colour”. I read beta's report “beta answers “Name a fruit”.”.");
    expect(answer.text).toContain("- beta (done): beta answers “Name a fruit”. I read alpha's report “alpha answers “Name a colour”.”.");
    const subs = core.registry.threadForRoute(route)!.subagents;
    for (const s of subs) {
      expect(s.rounds).toBe(2);
      expect(s.messages).toHaveLength(2);
      expect(s.messages[0]).not.toContain("I read");
      expect(s.context).toBe("Pick a picnic.");
    }
    // The second round resumed the first round's session: both prompts are in one session each.
    const store = new DemoSessionStore(demoSessionsDir(baton.dataDir));
    for (const s of subs) {
      const prompts = store.read(s.session!).filter((l) => l.type === "prompt") as Array<{ text: string }>;
      expect(prompts.map((p) => /round (\d) of 2/.exec(p.text)?.[1])).toEqual(["1", "2"]);
    }
  });

  it("where messages cannot be edited, the status block is sent when the subagents start and when they all ended", async () => {
    const platform = new TestPlatform("plain", { edits: false });
    await bootSubagents({ platform });
    const route = platform.route("noedit");
    await platform.say(route, "demo:subagents");
    await platform.waitFor(route, /Subagent reports:/, MULTI_AGENT_MS);
    const final = "**Subagents** (parallel)\n✅ `alpha` · demo · done\n✅ `beta` · demo · done";
    await platform.waitFor(route, (m) => m.text === final);
    const blocks = platform.on(route).filter((m) => /\*\*Subagents\*\*/.test(m.text));
    expect(blocks.map((m) => m.text)).toEqual(["**Subagents** (parallel)\n🕓 `alpha` · demo · queued\n🕓 `beta` · demo · queued", final]);
    expect(platform.callLog.filter((c) => c.call === "edit")).toEqual([]);
  });

  it("a subagent's permission request comes to the chat with its name and is answered like any other", async () => {
    const platform = new TestPlatform("typed", { buttons: false });
    const { core } = await bootSubagents({ platform });
    const route = platform.route("perm");
    await platform.say(route, "demo:subagents:permission");
    const request = await platform.waitFor(route, /Permission needed \(subagent beta\)/, MULTI_AGENT_MS);
    expect(request.text).toContain("touch beta.txt");
    const thread = core.registry.threadForRoute(route)!;
    expect(core.supervisor.state(thread.id).approvals).toBe(1);
    await platform.say(route, "/allow");
    await platform.waitFor(route, (m) => m.id === request.id && /Allow once — by Alice/.test(m.text));
    const answer = await platform.waitFor(route, /Subagent reports:/, MULTI_AGENT_MS);
    expect(answer.text).toContain("- beta (done): beta answers “Name a fruit” (permission allow-once).");
    expect(answer.text).toContain("- alpha (done): alpha answers “Name a colour”.");
  });

  it("a subagent's request is the requester's to answer: a teammate is refused privately, the requester decides", async () => {
    const platform = new TestPlatform("team", { buttons: false });
    const { core } = await bootSubagents({ platform, config: { access: { allow: ["test:bob", "test:cid"] } } });
    const route = platform.route("perm");
    const bob = { id: "test:bob", name: "Bob" };
    await platform.say(route, "demo:subagents:permission", bob);
    const request = await platform.waitFor(route, /Permission needed \(subagent beta\)/, MULTI_AGENT_MS);
    await platform.say(route, "/allow", { id: "test:cid", name: "Cid" });
    await platform.waitFor(route, /Only Bob \(test:bob\), who started this turn, or an admin may answer this request; you are test:cid/);
    expect(core.supervisor.state(core.registry.threadForRoute(route)!.id).approvals).toBe(1);
    await platform.say(route, "/allow", bob);
    await platform.waitFor(route, (m) => m.id === request.id && /Allow once — by Bob/.test(m.text));
    await platform.waitFor(route, /Subagent reports:/, MULTI_AGENT_MS);
  });
});

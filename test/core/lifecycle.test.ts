import { afterEach, describe, expect, it } from "vitest";
import { TestPlatform } from "../support/test-platform.js";
import { startTestBaton, waitUntil, type TestBaton } from "../support/harness.js";
import { DemoSessionStore, demoSessionsDir } from "../../src/agents/demo/store.js";

const started: TestBaton[] = [];
afterEach(async () => {
  for (const b of started.splice(0)) await b.stop({ cleanup: true });
});

async function boot(config: Record<string, unknown> = {}, dataDir?: string, platform = new TestPlatform()) {
  const baton = await startTestBaton({ adapters: [platform], config, dataDir });
  started.push(baton);
  return { platform, baton, core: baton.daemon.core };
}

describe("threads and hosts over time", () => {
  it("a new daemon on the same data dir restores threads, routes and sessions, and resumes the session", async () => {
    const first = await boot();
    const route = first.platform.route("r1");
    const other = first.platform.route("r2");
    await first.platform.say(route, "before restart");
    await first.platform.waitFor(route, /Turn 1/);
    const thread = first.core.registry.threadForRoute(route)!;
    await first.core.registry.attach(other, thread.id);
    await first.core.supervisor.drained(thread.id);
    const dataDir = first.baton.dataDir;
    await first.baton.daemon.stop();
    started.length = 0;

    const second = await boot({}, dataDir);
    const restored = second.core.registry.threadForRoute(route)!;
    expect(restored.id).toBe(thread.id);
    expect(restored.session).toBe(thread.session);
    expect([...restored.routes].sort()).toEqual([route, other].sort());
    await second.platform.say(route, "recall");
    const recall = await second.platform.waitFor(route, /1\. before restart/);
    expect(recall.text).toContain(thread.session!);
  });

  it("when resuming fails, the new session starts from a brief of the old one and the chat is told", async () => {
    const { platform, core, baton } = await boot({ agents: { default: "demo", profiles: { flaky: { agent: "demo", env: { BATON_DEMO_FAIL_RESUME: "1" } } } } });
    const route = platform.route("carry");
    await platform.say(route, "remember the falcon");
    await platform.waitFor(route, /Turn 1/);
    const thread = core.registry.threadForRoute(route)!;
    const old = thread.session!;
    await core.supervisor.drained(thread.id);
    // Same agent, another profile: the host restarts and resumes, and this agent's resume fails.
    await platform.say(route, "/switch demo flaky");
    await platform.say(route, "what was it?");
    await platform.waitFor(route, new RegExp(`Could not resume session ${old.slice(0, 8)}.*It starts from a brief of session ${old.slice(0, 8)}\\.`));
    await platform.waitFor(route, (m) => m.text.startsWith("Turn 1") && m.text.includes("[embedded file://"));
    const fresh = core.registry.threadForRoute(route)!.session!;
    expect(fresh).not.toBe(old);
    // The new session's first prompt: the brief embedded, the handoff marker, then the message.
    const [first] = new DemoSessionStore(demoSessionsDir(baton.dataDir)).read(fresh).filter((l) => l.type === "prompt") as Array<{ text: string }>;
    expect(first.text).toMatch(new RegExp(`^\\[embedded file://.*\\[baton-handoff from=demo session=${old}\\]\\s+what was it\\?$`, "s"));
  });

  it("keeps history an agent replays after answering session/load out of the chat", async () => {
    const late = { agent: "demo", env: { BATON_DEMO_NO_RESUME: "1", BATON_DEMO_LATE_REPLAY: "1" } };
    const { platform, core } = await boot({ agents: { default: "demo", profiles: { late } } });
    const route = platform.route("late-replay");
    await platform.say(route, "remember the heron");
    await platform.waitFor(route, /Turn 1/);
    await core.supervisor.drained(core.registry.threadForRoute(route)!.id);
    await platform.say(route, "/switch demo late");
    await platform.say(route, "recall");
    await platform.waitFor(route, /1\. remember the heron/);
    await core.supervisor.drained(core.registry.threadForRoute(route)!.id);
    expect(platform.on(route).filter((m) => m.text.includes("Turn 1 of session"))).toHaveLength(1);
  });

  it("shuts an idle host down, then resumes transparently on the next prompt", async () => {
    const { platform, core } = await boot({ agents: { default: "demo", idle_shutdown: 300 } });
    const route = platform.route("idle");
    await platform.say(route, "note this");
    await platform.waitFor(route, /Turn 1/);
    const thread = core.registry.threadForRoute(route)!;
    await core.supervisor.drained(thread.id);
    expect(core.supervisor.state(thread.id).host).toBe("idle");
    await waitUntil(() => core.supervisor.state(thread.id).host === "stopped");
    await platform.say(route, "recall");
    await platform.waitFor(route, /1\. note this/);
    expect(platform.transcript(route)).not.toMatch(/could not resume/i);
  });

  it("stops the least recently used idle host past agents.max_live_hosts", async () => {
    const { platform, core } = await boot({ agents: { default: "demo", max_live_hosts: 2 } });
    const routes = ["l1", "l2", "l3"].map((r) => platform.route(r));
    for (const route of routes) {
      await platform.say(route, "hello");
      await platform.waitFor(route, /Turn 1/);
      await core.supervisor.drained(core.registry.threadForRoute(route)!.id);
    }
    expect(core.supervisor.liveCount()).toBe(2);
    expect(core.supervisor.state(core.registry.threadForRoute(routes[0])!.id).host).toBe("stopped");
    expect(core.supervisor.state(core.registry.threadForRoute(routes[2])!.id).host).toBe("idle");
  });

  it("reports a crash mid-turn with the stderr tail, does not respawn, and the next prompt resumes", async () => {
    const { platform, core } = await boot();
    const route = platform.route("crash");
    await platform.say(route, "keep this");
    await platform.waitFor(route, /Turn 1/);
    const thread = core.registry.threadForRoute(route)!;
    await platform.say(route, "demo:crash");
    const report = await platform.waitFor(route, /Agent exited unexpectedly \(code 3\)/);
    expect(report.text).toContain("simulated crash");
    expect(core.supervisor.state(thread.id).host).toBe("stopped");
    expect(core.registry.get(thread.id)!.open).toBe(true);
    await platform.say(route, "recall");
    await platform.waitFor(route, /1\. keep this\n2\. demo:crash/);
  });

  it("answers a permission request from the chat by button, and by number where there are no buttons", async () => {
    const { platform, core } = await boot();
    const route = platform.route("perm");
    await platform.say(route, "demo:permission");
    const request = await platform.waitFor(route, (m) => !!m.buttons);
    // The title names the command ("Run `rm -rf build/`"): it shows once, not again in a code block.
    expect(request.text).toBe("🔐 **Permission needed:** Run `rm -rf build/`");
    const thread = core.registry.threadForRoute(route)!;
    expect(core.supervisor.state(thread.id).approvals).toBe(1);
    const stranger = await platform.press(route, request.buttons![0][0].id, { id: "test:mallory" });
    expect(stranger.ok).toBe(false);
    const outcome = await platform.press(route, request.buttons![0][0].id);
    expect(outcome).toEqual({ ok: true, text: "Allow once" });
    await platform.waitFor(route, /Permission answer: allow-once\./);
    // The card's edit and the agent's answer travel separately; either may land first.
    await platform.waitFor(route, (m) => m === request && /✅ Allow once — by Alice/.test(m.text));
    expect((await platform.press(route, request.buttons?.[0]?.[0]?.id ?? "ap:x:0")).ok).toBe(false);

    const plain = new TestPlatform("plain", { buttons: false });
    const second = await boot({}, undefined, plain);
    const r2 = plain.route("perm");
    await plain.say(r2, "demo:permission");
    await plain.waitFor(r2, /1\. Allow once\n2\. Always allow\n3\. Reject/);
    await plain.say(r2, "7");
    await plain.waitFor(r2, /No such option\. Answer with a number from 1 to 3, \/allow or \/deny\./);
    await plain.say(r2, "3");
    await plain.waitFor(r2, /Permission answer: reject\./);
    await plain.say(r2, "demo:permission");
    await plain.waitFor(r2, () => plain.on(r2).filter((x) => x.kind === "approval").length === 2);
    await plain.say(r2, "/deny");
    await plain.waitFor(r2, (m) => m.text === "Permission answer: reject." && plain.on(r2).filter((x) => x.text === m.text).length === 2);
    await plain.say(r2, "demo:permission");
    await plain.waitFor(r2, () => plain.on(r2).filter((x) => x.kind === "approval").length === 3);
    await plain.say(r2, "/allow");
    await plain.waitFor(r2, /Permission answer: allow-once\./);
    await plain.say(r2, "/allow");
    await plain.waitFor(r2, /No approval is pending here\./);
    expect(second.core.registry.threadForRoute(r2)).toBeDefined();
  });

  it('a rejection that ends the agent\'s turn (as Codex does) says so, not "Stopped"; a /stop still reads "Stopped"', async () => {
    const { platform } = await boot();
    const route = platform.route("reject");
    await platform.say(route, "demo:permission-ends-turn");
    const request = await platform.waitFor(route, (m) => !!m.buttons);
    // Titled with the bare command: it shows once, in the code block.
    expect(request.text).toBe("🔐 **Permission needed to run:**\n```\nrm -rf dist/\n```");
    const reject = request.buttons![0].find((b) => b.label === "Reject")!;
    expect((await platform.press(route, reject.id)).ok).toBe(true);
    await platform.waitFor(route, /🚫 Rejected: `rm -rf dist\/` — the agent stopped this turn/);
    await platform.waitFor(route, (m) => m === request && /🚫 Reject — by Alice/.test(m.text));
    expect(platform.transcript(route)).not.toMatch(/Stopped/);

    // Rejected, then stopped by a person while the next request waits: that is a stop.
    await platform.say(route, "demo:permission-ends-turn");
    await platform.waitFor(route, () => platform.on(route).filter((m) => m.kind === "approval").length === 2);
    await platform.say(route, "/stop");
    await platform.waitFor(route, /⏹ Stopped\./);
  });

  it("a rejection after which the agent ends its turn without a word (OpenCode, Qwen Code) says so; one it answers does not", async () => {
    const { platform } = await boot();
    const route = platform.route("reject-quietly");
    await platform.say(route, "demo:permission-ends-turn-quietly");
    const request = await platform.waitFor(route, (m) => !!m.buttons);
    expect((await platform.press(route, request.buttons![0].find((b) => b.label === "Reject")!.id)).ok).toBe(true);
    await platform.waitFor(route, /🚫 Rejected: `rm -rf dist\/` — the agent stopped this turn/);

    // Allowed: the agent goes on and says so itself, no notice.
    await platform.say(route, "demo:permission-ends-turn-quietly");
    await platform.waitFor(route, () => platform.on(route).filter((m) => m.kind === "approval").length === 2);
    const second = platform.on(route).filter((m) => m.kind === "approval")[1];
    expect((await platform.press(route, second.buttons![0].find((b) => b.label !== "Reject")!.id)).ok).toBe(true);
    await platform.waitFor(route, /Ran rm -rf dist\/\./);
    expect(platform.transcript(route).match(/🚫 Rejected/g)).toHaveLength(1);
  });

  it("an authentication error closes the thread with the reason and the fix", async () => {
    const { platform, core } = await boot();
    const route = platform.route("auth");
    await platform.say(route, "demo:auth");
    const msg = await platform.waitFor(route, /needs you to log in/);
    expect(msg.text).toMatch(/Run `.*` once in a terminal/);
    expect(msg.text).toContain("This thread is now closed");
    await waitUntil(() => core.registry.threadForRoute(route) === undefined);
  });

  it("a missing agent CLI closes the thread with the install hint", async () => {
    const { platform, core } = await boot({ agents: { default: "ghost", custom: { ghost: { command: "baton-no-such-agent-cli", install_hint: "npm install -g ghost-agent" } } } });
    const route = platform.route("missing");
    await platform.say(route, "hello");
    const msg = await platform.waitFor(route, /not installed/);
    expect(msg.text).toContain("npm install -g ghost-agent");
    await waitUntil(() => core.registry.threadForRoute(route) === undefined);
  });

  it("a stranger gets one refusal naming their id, and nothing of theirs reaches an agent", async () => {
    const { platform, core } = await boot();
    const route = platform.route("dm-stranger");
    const mallory = { id: "test:mallory", name: "Mallory" };
    await platform.say(route, "rm -rf /", mallory);
    await platform.waitFor(route, /Ask the operator to add `test:mallory` to access.allow/);
    await platform.say(route, "again", mallory);
    await platform.say(route, "/new claude", mallory);
    await platform.say(route, "/help", mallory);
    await platform.waitFor(route, /Baton commands/);
    expect(platform.on(route).filter((m) => /not allowed/.test(m.text))).toHaveLength(1);
    expect(core.registry.threadForRoute(route)).toBeUndefined();
    expect([...core.registry.all()]).toHaveLength(0);
    // Unaddressed group chatter from anyone is ignored silently.
    await platform.say(platform.route("group"), "hello all", { id: "test:alice" }, { addressed: false });
    expect(platform.on(platform.route("group"))).toHaveLength(0);
  });
});

describe("one daemon per data dir", () => {
  it("refuses a second daemon on the same data dir, and takes over a stale lock", async () => {
    const { writeFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const first = await boot();
    await expect(startTestBaton({ adapters: [new TestPlatform("second")], dataDir: first.baton.dataDir })).rejects.toThrow(/Another Baton \(pid \d+\) is already running/);
    const dataDir = first.baton.dataDir;
    await first.baton.daemon.stop();
    started.length = 0;
    // A pid file left by a process that is gone does not block the next start.
    writeFileSync(join(dataDir, "baton.pid"), "999999999\n");
    const again = await boot({}, dataDir);
    expect(again.core.registry).toBeDefined();
  });

  it("stopping a daemon again does nothing: the daemon started on its data dir since keeps what it wrote there", async () => {
    const { existsSync, readFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const first = await boot();
    const dataDir = first.baton.dataDir;
    await first.baton.daemon.stop();
    started.length = 0;
    const second = await boot({}, dataDir);
    const route = second.platform.route("slow");
    await second.platform.say(route, "demo:slow");
    const thread = () => second.core.registry.threadForRoute(route);
    const file = () => join(dataDir, "running-turns.json");
    const runningTurns = () => (existsSync(file()) ? readFileSync(file(), "utf8") : "");
    await waitUntil(() => thread() !== undefined && runningTurns().includes(thread()!.id));
    await first.baton.daemon.stop();
    expect(runningTurns()).toContain(thread()!.id);
  });
});

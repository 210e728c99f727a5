// The spare agent process (agents.spare_host): started after serving, taken over by the first new
// thread's host, bounded by max_live_hosts and idle_shutdown, reported once when it crashes, gone
// when Baton stops. Its session, made ahead, goes to one new thread only (with its Baton MCP
// server, acting for that thread from then on). Real demo agent processes; pids are checked at the OS.
import { afterEach, describe, expect, it } from "vitest";
import { waitUntil, type TestBaton } from "../support/harness.js";
import { SPARE_READY_MS, startSpareBaton } from "../support/spare-baton.js";
import { SPARE_DELAY_MS } from "../../src/agents/spare.js";
import { parseConfigText } from "../../src/config/load.js";
import { stringify } from "yaml";
import { tmpdir } from "node:os";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { isProcessAlive } from "../../src/kernel/process.js";

const started: TestBaton[] = [];
afterEach(async () => {
  for (const b of started.splice(0)) await b.stop({ cleanup: true });
});

/** Long enough for a spare to have been started again, were it to be. */
const AFTER_SPARE_DELAY_MS = SPARE_DELAY_MS + 700;

const boot = (agents: Record<string, unknown> = {}) => startSpareBaton(started, agents);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the spare agent process", () => {
  it("is started after serving, the first new thread's host takes it over (same pid), and the next one follows", async () => {
    const { platform, baton, logs, spare, readySpare, hostPid } = await boot();
    const pid = await readySpare();
    expect(isProcessAlive(pid)).toBe(true);
    expect(baton.daemon.snapshot().spareHost).toEqual({ agent: "demo", pid, state: "ready", session: expect.any(String) });
    const ready = logs.find((l) => l.msg.startsWith("spare agent process ready") && l.pid === pid);
    // Agents run 10 steps below Baton by default: no scheduling class to report (only agents.nice: idle has one).
    expect(ready).toBeDefined();
    expect(ready?.cpu_class).toBeUndefined();
    const route = platform.route("first");
    await platform.say(route, "hello");
    await platform.waitFor(route, /Turn 1/);
    expect(hostPid(route)).toBe(pid);
    expect(logs.some((l) => l.msg === "agent host started on the spare process" && l.pid === pid)).toBe(true);
    // A new spare for the next thread, in a process of its own.
    const next = await readySpare();
    expect(next).not.toBe(pid);
    expect(spare()?.pid).toBe(next);
    const second = platform.route("second");
    await platform.say(second, "hello too");
    await platform.waitFor(second, /Turn 1/);
    expect(hostPid(second)).toBe(next);
  });

  it("never takes a place max_live_hosts does not have, and is the first process stopped for room", async () => {
    const one = await boot({ max_live_hosts: 1 });
    const pid = await one.readySpare();
    const route = one.platform.route("only");
    await one.platform.say(route, "hello");
    await one.platform.waitFor(route, /Turn 1/);
    expect(one.hostPid(route)).toBe(pid);
    await sleep(AFTER_SPARE_DELAY_MS);
    // Its one place is the thread's now: no spare beside it.
    expect(one.spare()).toBeUndefined();
    expect(one.core.supervisor.liveCount()).toBe(1);

    const two = await boot({ max_live_hosts: 2, profiles: { other: { agent: "demo", env: { BATON_DEMO_OTHER: "1" } } } });
    const first = await two.readySpare();
    const a = two.platform.route("a");
    await two.platform.say(a, "hello");
    await two.platform.waitFor(a, /Turn 1/);
    const spare = await two.readySpare();
    expect(two.core.supervisor.liveCount()).toBe(1);
    expect(spare).not.toBe(first);
    // Another launch (a profile) cannot use the spare: it makes room by stopping the spare, not thread a's idle host.
    const b = two.platform.route("b");
    await two.platform.say(b, "/new demo+other");
    await two.platform.say(b, "hello");
    await two.platform.waitFor(b, /Turn 1/);
    expect(two.hostPid(a)).toBe(first);
    expect(two.hostPid(b)).not.toBe(spare);
    await waitUntil(() => !isProcessAlive(spare));
    expect(two.logs.some((l) => l.msg === "spare agent process stopped" && l.pid === spare && /max_live_hosts/.test(l.why ?? ""))).toBe(true);
    await sleep(AFTER_SPARE_DELAY_MS);
    expect(two.spare()).toBeUndefined();
    expect(two.core.supervisor.liveCount()).toBe(2);
  });

  it("is stopped with Baton: no process left", async () => {
    const { platform, baton, readySpare, hostPid } = await boot();
    await readySpare();
    const route = platform.route("r");
    await platform.say(route, "hello");
    await platform.waitFor(route, /Turn 1/);
    const host = hostPid(route)!;
    const spare = await readySpare();
    started.length = 0;
    await baton.stop({ cleanup: true });
    expect(isProcessAlive(host)).toBe(false);
    expect(isProcessAlive(spare)).toBe(false);
  });

  it("stopping Baton while the spare is still starting leaves no process", async () => {
    const { baton, spare } = await boot();
    await waitUntil(() => spare()?.pid !== undefined, SPARE_READY_MS);
    const pid = spare()!.pid!;
    started.length = 0;
    await baton.stop({ cleanup: true });
    expect(isProcessAlive(pid)).toBe(false);
  });

  it("a spare that crashes is reported once, not started again in a loop, and the next thread starts its own process", async () => {
    const { platform, logs, spare, readySpare, hostPid } = await boot();
    const pid = await readySpare();
    process.kill(pid, "SIGKILL");
    const failures = () => logs.filter((l) => l.level === 40 && l.msg.startsWith("spare agent process failed"));
    await waitUntil(() => failures().length === 1);
    await sleep(AFTER_SPARE_DELAY_MS);
    expect(spare()).toBeUndefined();
    expect(failures()).toHaveLength(1);
    const route = platform.route("after-crash");
    await platform.say(route, "hello");
    await platform.waitFor(route, /Turn 1/);
    const host = hostPid(route)!;
    expect(host).not.toBe(pid);
    expect(isProcessAlive(host)).toBe(true);
    // A thread's agent of that kind started: a new spare is made again.
    const next = await readySpare();
    expect([pid, host]).not.toContain(next);
    expect(failures()).toHaveLength(1);
  });

  it("unused, it stops after agents.idle_shutdown and comes back only when a thread's agent starts", async () => {
    const { platform, logs, spare, readySpare, hostPid } = await boot({ idle_shutdown: 600 });
    const pid = await readySpare();
    await waitUntil(() => !isProcessAlive(pid));
    expect(logs.some((l) => l.msg === "spare agent process stopped" && l.pid === pid && /idle_shutdown/.test(l.why ?? ""))).toBe(true);
    await sleep(AFTER_SPARE_DELAY_MS);
    expect(spare()).toBeUndefined();
    const route = platform.route("later");
    await platform.say(route, "hello");
    await platform.waitFor(route, /Turn 1/);
    expect(hostPid(route)).not.toBe(pid);
    await readySpare();
  });

  it("gone after idle_shutdown, it is made again when someone allowed types where no thread is yet (not for a stranger)", async () => {
    const { core, platform, spare, readySpare } = await boot({ idle_shutdown: 600 });
    const pid = await readySpare();
    await waitUntil(() => !isProcessAlive(pid));
    await sleep(AFTER_SPARE_DELAY_MS);
    const route = platform.route("about-to-write");
    core.handleTyping({ route, user: { id: "test:mallory" } });
    await sleep(AFTER_SPARE_DELAY_MS);
    expect(spare()).toBeUndefined();
    core.handleTyping({ route, user: { id: "test:alice" } });
    expect(await readySpare()).not.toBe(pid);
  });

  it("a config reload that turns agents.spare_host off stops the spare, and none follows", async () => {
    const { baton, logs, spare, readySpare } = await boot();
    const pid = await readySpare();
    const next = {
      agents: { default: "demo", spare_host: false },
      access: { allow: ["test:alice"] },
      workspaces: { roots: [tmpdir(), process.cwd()], default: process.cwd() },
      ops: { listen: "off" },
    };
    expect(baton.daemon.reload(() => parseConfigText(stringify(next), "reloaded.yaml", {}))).toMatchObject({ ok: true });
    await waitUntil(() => !isProcessAlive(pid));
    expect(logs.some((l) => l.msg === "spare agent process stopped" && l.pid === pid && /config/.test(l.why ?? ""))).toBe(true);
    await sleep(AFTER_SPARE_DELAY_MS);
    expect(spare()).toBeUndefined();
  });

  it("a config reload that moves the default workspace discards the spare and its session; the next one opens its session there", async () => {
    const { baton, logs, spare, readySpare, platform, thread } = await boot();
    const pid = await readySpare();
    const old = spare()!.session;
    const elsewhere = mkdtempSync(join(tmpdir(), "baton-spare-ws-"));
    const next = {
      agents: { default: "demo", spare_host: true },
      access: { allow: ["test:alice"] },
      workspaces: { roots: [tmpdir(), process.cwd()], default: elsewhere },
      ops: { listen: "off" },
    };
    try {
      expect(baton.daemon.reload(() => parseConfigText(stringify(next), "reloaded.yaml", {}))).toMatchObject({ ok: true });
      await waitUntil(() => !isProcessAlive(pid));
      expect(logs.some((l) => l.msg === "spare agent process stopped" && l.pid === pid && /config/.test(l.why ?? ""))).toBe(true);
      const fresh = await readySpare();
      expect(logs.find((l) => l.msg.startsWith("spare agent process ready") && l.pid === fresh)).toMatchObject({ cwd: elsewhere });
      const route = platform.route("moved");
      await platform.say(route, "hello");
      await platform.waitFor(route, /Turn 1/);
      expect(thread(route).session).not.toBe(old);
      expect(thread(route).session).toBe(logs.find((l) => l.pid === fresh && l.msg.startsWith("spare agent process ready"))?.session);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it("agents.spare_host: false makes none", async () => {
    const { platform, baton, logs, spare, hostPid } = await boot({ spare_host: false });
    await sleep(AFTER_SPARE_DELAY_MS);
    expect(spare()).toBeUndefined();
    expect(baton.daemon.snapshot().spareHost).toBeUndefined();
    const route = platform.route("r");
    await platform.say(route, "hello");
    await platform.waitFor(route, /Turn 1/);
    expect(hostPid(route)).toBeDefined();
    await sleep(AFTER_SPARE_DELAY_MS);
    expect(spare()).toBeUndefined();
    expect(logs.some((l) => l.msg.includes("spare"))).toBe(false);
  });
});

describe("the spare's session", () => {
  it("is made ahead and taken by the next new thread, whose MCP server then acts for that thread", async () => {
    const { platform, readySession, thread, hostStarts } = await boot();
    const spare = await readySession();
    expect(spare.session).toEqual(expect.any(String));
    const route = platform.route("first");
    await platform.say(route, "hello");
    await platform.waitFor(route, /Turn 1/);
    expect(thread(route).session).toBe(spare.session);
    expect(hostStarts().find((l) => l.thread === thread(route).id)).toMatchObject({ pid: spare.pid, session: spare.session, how: "new", session_ahead: true });
    // The token given to the session ahead of any thread now names this one: a thread-only tool works.
    await platform.say(route, "demo:mcp cancel_subagents {}");
    const answer = await platform.waitFor(route, /cancel_subagents( error)?:/);
    expect(answer.text).toMatch(/^cancel_subagents: /);
    // The next spare has a session of its own.
    const next = await readySession();
    expect(next.session).toEqual(expect.any(String));
    expect(next.session).not.toBe(spare.session);
  });

  it("is never taken by two threads: of two new threads at once, one gets it and the other a session of its own", async () => {
    const { platform, readySession, thread, hostStarts } = await boot();
    const spare = await readySession();
    const a = platform.route("a");
    const b = platform.route("b");
    await Promise.all([platform.say(a, "hello a"), platform.say(b, "hello b")]);
    await Promise.all([platform.waitFor(a, /Turn 1/), platform.waitFor(b, /Turn 1/)]);
    const sessions = [thread(a).session, thread(b).session];
    expect(new Set(sessions).size).toBe(2);
    expect(sessions.filter((s) => s === spare.session)).toHaveLength(1);
    const ahead = hostStarts().filter((l) => l.session_ahead);
    expect(ahead).toHaveLength(1);
    expect(ahead[0].session).toBe(spare.session);
    // Each thread goes on in its own session.
    await platform.say(a, "again a");
    await platform.say(b, "again b");
    await Promise.all([platform.waitFor(a, /Turn 2/), platform.waitFor(b, /Turn 2/)]);
  });

  it("is left unused by a thread that resumes its own session on the spare process", async () => {
    const { platform, core, readySession, thread, hostStarts } = await boot();
    await readySession();
    const route = platform.route("returning");
    await platform.say(route, "hello");
    await platform.waitFor(route, /Turn 1/);
    const own = thread(route).session!;
    // Its host is gone (as after idle_shutdown); the spare, with a session of its own, is there when the person comes back.
    const spare = await readySession();
    await core.supervisor.stopHost(thread(route).id);
    await platform.say(route, "back again");
    await platform.waitFor(route, /Turn 2/);
    expect(thread(route).session).toBe(own);
    const resumed = hostStarts()
      .filter((l) => l.thread === thread(route).id)
      .at(-1)!;
    expect(resumed).toMatchObject({ pid: spare.pid, session: own, session_ahead: false });
    expect(own).not.toBe(spare.session);
  });
});

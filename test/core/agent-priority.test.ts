// Agent processes on this machine run below Baton's own CPU priority (agents.nice), so an agent's
// builds and test suites cannot slow the chat. By default 10 steps below Baton in the normal class,
// every thread of them: the thread's host and the spare process started ahead, read back from the
// kernel. `idle` puts them in Linux's idle scheduling class, at the lowest nice value beneath it
// (what remains where the class cannot be had); 0 keeps Baton's priority. (A host on another
// machine is ssh, carrying Baton's own traffic: test/agents/machines/remote.test.ts sees it keep Baton's.)
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { getPriority, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfigText } from "../../src/config/load.js";
import { configWarnings } from "../../src/config/warnings.js";
import { runInIdleClass } from "../../src/kernel/process.js";
import { startTestBaton, waitUntil, type TestBaton } from "../support/harness.js";
import { TestPlatform } from "../support/test-platform.js";

const started: TestBaton[] = [];
afterEach(async () => {
  for (const baton of started.splice(0)) await baton.stop({ cleanup: true });
});

/** The test runs Baton in its own process: Baton's priority is this process's. */
const own = getPriority();
const below = (by: number) => Math.min(19, own + by);
const SCHED_OTHER = 0;
const SCHED_IDLE = 5;

/** Policy and nice value of every thread of `pid`, as the kernel has them (/proc/PID/task/TID/stat). */
function threadsOf(pid: number): Array<{ policy: number; nice: number }> {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    // Fields after "pid (comm) ": nice is field 19 and policy field 41 of the whole line.
    const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8").split(") ")[1].split(" ");
    return { nice: Number(fields[16]), policy: Number(fields[38]) };
  });
}

async function hostPriority(agents: Record<string, unknown>) {
  const platform = new TestPlatform();
  const baton = await startTestBaton({ adapters: [platform], config: { agents: { default: "demo", ...agents } } });
  started.push(baton);
  const core = baton.daemon.core;
  const route = platform.route("nice");
  await platform.say(route, "hello");
  await platform.waitFor(route, /you said "hello"/);
  const pid = core.supervisor.host(core.registry.threadForRoute(route)!.id)!.pid!;
  return { core, pid, priority: getPriority(pid) };
}

describe.runIf(process.platform === "linux")("agent processes' CPU priority", () => {
  it("is 10 steps below Baton by default, in the normal class, every thread, for the thread's host and the spare process", async () => {
    const { core, pid } = await hostPriority({ spare_host: true });
    const classes = (of: number) => new Set(threadsOf(of).map((t) => `policy ${t.policy}, nice ${t.nice}`));
    const ten = new Set([`policy ${SCHED_OTHER}, nice ${below(10)}`]);
    expect(threadsOf(pid).length).toBeGreaterThan(1);
    expect(classes(pid)).toEqual(ten);
    await waitUntil(() => core.supervisor.spareState()?.state === "ready", 20_000);
    expect(classes(core.supervisor.spareState()!.pid!)).toEqual(ten);
  });

  it("is Linux's idle class with agents.nice: idle, every thread, at the lowest nice value beneath it", async () => {
    const { core, pid } = await hostPriority({ nice: "idle", spare_host: true });
    const classes = (of: number) => new Set(threadsOf(of).map((t) => `policy ${t.policy}, nice ${t.nice}`));
    const idle = new Set([`policy ${SCHED_IDLE}, nice 19`]);
    expect(threadsOf(pid).length).toBeGreaterThan(1);
    expect(classes(pid)).toEqual(idle);
    await waitUntil(() => core.supervisor.spareState()?.state === "ready", 20_000);
    expect(classes(core.supervisor.spareState()!.pid!)).toEqual(idle);
  });

  it("follows a number in agents.nice in the normal class, and 0 keeps Baton's own", async () => {
    const three = await hostPriority({ nice: 3 });
    expect(three.priority).toBe(below(3));
    expect(threadsOf(three.pid).every((t) => t.policy === SCHED_OTHER)).toBe(true);
    const zero = await hostPriority({ nice: 0 });
    expect(zero.priority).toBe(own);
    expect(threadsOf(zero.pid).every((t) => t.policy === SCHED_OTHER)).toBe(true);
  });

  it("says when the idle class cannot be set: no chrt, a refusal (with chrt's reason), or the process is gone", async () => {
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30_000)"], { stdio: "ignore" });
    try {
      await new Promise((resolve) => child.once("spawn", resolve));
      expect(await runInIdleClass(child.pid!, "/nonexistent/chrt")).toBe("no-chrt");
      // A chrt the system turns down, as a sandbox that filters sched_setscheduler would.
      const refusing = join(mkdtempSync(join(tmpdir(), "baton-chrt-")), "chrt");
      writeFileSync(refusing, '#!/bin/sh\necho "chrt: failed to set pid\'s policy: Operation not permitted" >&2\nexit 1\n', { mode: 0o755 });
      try {
        expect(await runInIdleClass(child.pid!, refusing)).toBe("refused: chrt: failed to set pid's policy: Operation not permitted");
      } finally {
        rmSync(dirname(refusing), { recursive: true, force: true });
      }
      expect(threadsOf(child.pid!).some((t) => t.policy === SCHED_IDLE)).toBe(false);
      expect(await runInIdleClass(child.pid!)).toBe("idle");
      expect(threadsOf(child.pid!).every((t) => t.policy === SCHED_IDLE)).toBe(true);
    } finally {
      child.kill();
    }
    await new Promise((resolve) => child.once("exit", resolve));
    expect(await runInIdleClass(child.pid!)).toBe("exited");
  });

  it("warns at start when agents.nice is idle and chrt is not on PATH", () => {
    const loaded = parseConfigText("agents:\n  nice: idle\n", "baton.yaml", {});
    const path = process.env.PATH;
    try {
      process.env.PATH = "/nonexistent";
      expect(configWarnings(loaded).map((w) => w.key)).toEqual(["agents.nice"]);
      expect(configWarnings(parseConfigText("agents:\n  nice: 10\n", "baton.yaml", {}))).toEqual([]);
    } finally {
      process.env.PATH = path;
    }
    expect(configWarnings(loaded)).toEqual([]);
  });

  it("names the key and what would work for a bad value", () => {
    expect(() => parseConfigText("agents:\n  nice: lowest\n", "baton.yaml", {})).toThrow(/agents\.nice.*expected idle, or a whole number from 0 to 19/s);
  });
});

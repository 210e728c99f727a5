// An in-process Baton (harness.ts) on the test platform with the spare agent process on
// (agents.spare_host), its log kept as JSON lines, and the probes the spare's tests read: the spare's
// state and pid, a route's thread and host pid, the hosts started. For test/core/ (spare, typing).
import { Writable } from "node:stream";
import { createLogger } from "../../src/kernel/log.js";
import { TestPlatform } from "./test-platform.js";
import { startTestBaton, waitUntil, type TestBaton } from "./harness.js";

/** How long a spare may take to start on a busy machine. */
export const SPARE_READY_MS = 20_000;

interface SpareLogLine {
  level: number;
  msg: string;
  pid?: number;
  why?: string;
  thread?: string;
  session?: string;
  session_ahead?: boolean;
  how?: string;
  cwd?: string;
}

/** `agents`: more keys of the agents section; `env`: the agents' environment (the demo agent's BATON_DEMO_* switches). Push the Baton to `started` to have it stopped. */
export async function startSpareBaton(started: TestBaton[], agents: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = {}) {
  const logs: SpareLogLine[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) logs.push(JSON.parse(line));
      done();
    },
  });
  const platform = new TestPlatform();
  const baton = await startTestBaton({ adapters: [platform], config: { agents: { default: "demo", spare_host: true, ...agents } }, env, log: createLogger({ format: "json", destination }) });
  started.push(baton);
  const core = baton.daemon.core;
  const spare = () => core.supervisor.spareState();
  const readySpare = async () => {
    await waitUntil(() => spare()?.state === "ready", SPARE_READY_MS);
    return spare()!.pid!;
  };
  const hostPid = (route: string) => core.supervisor.host(core.registry.threadForRoute(route)!.id)?.pid;
  const readySession = async () => {
    await readySpare();
    return spare()!;
  };
  const thread = (route: string) => core.registry.threadForRoute(route)!;
  const hostStarts = () => logs.filter((l) => l.msg === "agent host started on the spare process" || l.msg === "agent host started");
  return { platform, baton, core, logs, spare, readySpare, readySession, hostPid, thread, hostStarts };
}

// What agents.nice costs the agent's own work: a CPU-bound job the agent runs (`demo:job`, a process
// of its own, as a test suite it started would be, at the agent's priority) while the person's own
// build keeps every core busy at normal priority (processes the bench starts, at Baton's priority).
// Three Batons run side by side, as shipped but for agents.nice: 0, 10 and Linux's idle class, and
// take turns: one job at a time, so a change in the machine's other load falls on all three alike.
// The build runs twice: in Baton's own session, and in a session of its own as a terminal's would
// be. Where the kernel groups processes for fairness (autogroup: one group per session; or a cgroup
// per service or app under systemd) it first shares the CPU between the groups, and a nice value or
// the idle class only counts inside a group: then the three settings measure alike. In one group
// they do not. A job's wall time is what the agent (and whoever waits for its answer) feels; the
// build's share of the cores meanwhile is what the person feels.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { JOB_MARKER } from "../src/agents/demo/load.js";
import { monotonicMs } from "../src/kernel/clock.js";
import { childrenOf, processCpuMs, sleep, until, type BatonProcess } from "./lib/baton.js";
import { telegramUser } from "./lib/fakes.js";
import { figure, type Figure } from "./lib/figure.js";
import { withTelegramBaton, type TelegramRun } from "./lib/probes.js";

export interface PriorityScale {
  /** The job's size in demo:job units (about 2 ms of CPU each on the bench's 2-core machine). */
  jobUnits: number;
  /** Jobs per setting while the build runs. */
  rounds: number;
  /** A job not done this long after it was asked for is stopped: its wall time is at least how long it ran. */
  capMs: number;
  /** The person's build: one CPU-bound process per core keeps every core busy. */
  buildProcesses: number;
}

export const PRIORITY_FULL: PriorityScale = { jobUnits: 200, rounds: 3, capMs: 10_000, buildProcesses: cpus().length };
export const PRIORITY_TINY: PriorityScale = { jobUnits: 5, rounds: 1, capMs: 5_000, buildProcesses: 1 };

/** The rule that chose the default: the idle class only where it costs the agent's job less than this against nice 0. */
const IDLE_CLASS_MAX_COST = 1.5;
const NICES = [0, 10, "idle"] as const;
type Nice = (typeof NICES)[number];
const ANSWER = /CPU-bound job of \d+ units done in (\d+) ms \(its CPU time: (\d+) ms\)/;
const CLOCK_TICKS_PER_SECOND = 100;
/** Starting Baton and its agent on a loaded machine; a job with no build beside it. */
const PHASE_TIMEOUT_MS = 120_000;
/** How long past the cap a job may take to start on a machine busy past the build. */
const JOB_START_GRACE_MS = 60_000;

interface Job {
  wallMs: number;
  /** The build's CPU over the job's wall time, in % of all cores. */
  buildPercent: number;
  /** Stopped at the cap: wallMs is how long it had run, and `projectedMs` what its rate so far would take. */
  capped?: { cpuMs: number; projectedMs: number };
}

/** Where the person's build runs: in Baton's session (one scheduling group with the agents), or a session of its own. */
const LAYOUTS = ["shared", "own"] as const;
type Layout = (typeof LAYOUTS)[number];

interface Setting {
  nice: Nice;
  run: TelegramRun;
  chatId: number;
  send(text: string): void;
  alone: number;
  jobs: Record<Layout, Job[]>;
}

export async function benchPriority(scale: PriorityScale): Promise<Array<Figure | string>> {
  return withBatons([], async (runs) => {
    const settings: Setting[] = [];
    const jobCpuMs: number[] = [];
    for (const [i, run] of runs.entries()) {
      const chat = telegramUser(run.tg, 0);
      chat.send("warm up");
      await until(() => run.textCalls.to(chat.chatId).length > 0, "the agent's first answer", PHASE_TIMEOUT_MS, 20);
      const setting: Setting = { nice: NICES[i], run, chatId: chat.chatId, send: (text) => chat.send(text), alone: 0, jobs: { shared: [], own: [] } };
      const alone = await askForJob(setting, scale, PHASE_TIMEOUT_MS);
      if (!alone) throw new Error(`bench: a job with no build beside it took over ${PHASE_TIMEOUT_MS} ms (agents.nice: ${setting.nice})`);
      setting.alone = alone.wallMs;
      jobCpuMs.push(alone.cpuMs);
      settings.push(setting);
    }
    for (const layout of LAYOUTS) {
      const build = startBuild(scale.buildProcesses, layout === "own");
      try {
        await sleep(1_000);
        for (let round = 0; round < scale.rounds; round++) {
          // A setting whose job was stopped at the cap has said what it had to say.
          for (const setting of settings.filter((s) => !s.jobs[layout].some((j) => j.capped))) {
            setting.jobs[layout].push(await jobBesideBuild(setting, scale, build, median(jobCpuMs)));
          }
        }
      } finally {
        build.stop();
      }
    }
    return figures(scale, settings);
  });
}

/** Three Batons side by side, one for each agents.nice setting; all stopped afterwards. */
function withBatons<T>(started: TelegramRun[], body: (runs: TelegramRun[]) => Promise<T>): Promise<T> {
  if (started.length === NICES.length) return body(started);
  return withTelegramBaton(
    { agentsNice: NICES[started.length], maxLiveHosts: 4 },
    async () => undefined,
    (run) => withBatons([...started, run], body),
  );
}

type Answer = { wallMs: number; cpuMs: number };

function answerSince(setting: Setting, from: number): Answer | undefined {
  for (const call of setting.run.textCalls.to(setting.chatId, from)) {
    const match = ANSWER.exec(String(call.params.text ?? ""));
    if (match) return { wallMs: Number(match[1]), cpuMs: Number(match[2]) };
  }
  return undefined;
}

async function askForJob(setting: Setting, scale: PriorityScale, timeoutMs: number): Promise<Answer | undefined> {
  const from = monotonicMs();
  setting.send(`demo:job ${scale.jobUnits}`);
  for (const deadline = from + timeoutMs; monotonicMs() < deadline; await sleep(20)) {
    const answer = answerSince(setting, from);
    if (answer) return answer;
  }
  return undefined;
}

async function jobBesideBuild(setting: Setting, scale: PriorityScale, build: Build, jobCpuMs: number): Promise<Job> {
  const buildBefore = build.cpuMs();
  const from = monotonicMs();
  const answer = await askForJob(setting, scale, scale.capMs);
  const buildPercent = ((build.cpuMs() - buildBefore) / ((monotonicMs() - from) * cpus().length)) * 100;
  if (answer) return { wallMs: answer.wallMs, buildPercent };
  // Not done at the cap: how long the job has run and how much of its work it did, from the
  // kernel; then it is stopped (the agent says so in the chat, which nobody waits for). On a
  // machine busy past the build (the toy scale runs beside other tests) the job may not even have
  // started by the cap; its start is not what is measured, so that is waited for.
  const late = await until(() => answerSince(setting, from) ?? jobProcess(setting.run.baton), `the agent to start its job (agents.nice: ${setting.nice})`, JOB_START_GRACE_MS, 20);
  if (!("pid" in late)) return { wallMs: late.wallMs, buildPercent };
  const job = late;
  try {
    process.kill(job.pid, "SIGKILL");
  } catch {
    // it ended just now
  }
  // The projection is rough (a job's CPU per unit grows with contention) and never below what it ran.
  const projectedMs = Math.max(job.ranMs, (job.ranMs * jobCpuMs) / Math.max(job.cpuMs, 1));
  return { wallMs: job.ranMs, buildPercent, capped: { cpuMs: Math.round(job.cpuMs), projectedMs } };
}

function figures(scale: PriorityScale, settings: Setting[]): Array<Figure | string> {
  const cores = cpus().length;
  const job = `a job of ${scale.jobUnits} demo:job units the agent runs (a process of its own, at the agent's priority), from its spawn to its exit as the agent timed it`;
  const build = (layout: Layout) =>
    `the person's build (${scale.buildProcesses} CPU-bound process${scale.buildProcesses === 1 ? "" : "es"} at Baton's priority${layout === "own" ? ", in a session of its own" : ", in Baton's session"}) keeping ${scale.buildProcesses >= cores ? "every core" : `${scale.buildProcesses} of ${cores} cores`} busy; the three settings take turns`;
  const where = { shared: "in Baton's session", own: "in a session of its own" };
  // A capped job counts at its projection in the ratio: its wall time is only a lower bound.
  const typical = (s: Setting, layout: Layout) => median(s.jobs[layout].map((j) => j.capped?.projectedMs ?? j.wallMs));
  const ratio = (s: Setting, layout: Layout) => {
    const capped = s.jobs[layout].find((j) => j.capped);
    const atLeast = capped ? `at least ${(capped.wallMs / typical(settings[0], layout)).toFixed(1)}×, at its rate ~` : "";
    return `${atLeast}${(typical(s, layout) / typical(settings[0], layout)).toFixed(1)}×`;
  };
  const [, ten, idle] = settings;
  // The rule takes the case where the agents' work and the build share one group: there the setting counts.
  const idleCost = typical(idle, "shared") / typical(settings[0], "shared");
  return [
    figure(
      { id: "priority-job-alone", label: "an agent's CPU-bound job, before the person's build starts", unit: "ms", definition: `${job}; once under each of the three settings below` },
      settings.map((s) => s.alone),
    ),
    ...LAYOUTS.flatMap((layout) => [
      ...settings.map((s) => {
        const capped = s.jobs[layout].some((j) => j.capped);
        const label = `… while the person's build ${where[layout]} keeps every core busy, agents.nice: ${s.nice}${capped ? ` (stopped at the ${scale.capMs / 1000} s cap: at least)` : ""}`;
        return figure(
          { id: `priority-job-${layout}-${key(s.nice)}`, label, unit: "ms", definition: `${job}; ${build(layout)}` },
          s.jobs[layout].map((j) => j.wallMs),
        );
      }),
      ...settings.map((s) =>
        figure(
          {
            id: `priority-build-${layout}-${key(s.nice)}`,
            label: `… meanwhile, the build's share of the cores, agents.nice: ${s.nice}`,
            unit: "%",
            definition: `the build processes' CPU time over each job's wall time, in % of all ${cores} cores`,
          },
          s.jobs[layout].map((j) => j.buildPercent),
        ),
      ),
      ...settings.flatMap((s) =>
        s.jobs[layout].flatMap((j) =>
          j.capped ? [`  the job at agents.nice: ${s.nice} had used ${j.capped.cpuMs} ms of CPU when stopped; at that rate it would have taken ${(j.capped.projectedMs / 1000).toFixed(0)} s`] : [],
        ),
      ),
      `  the agent's job against agents.nice: 0, the build ${where[layout]}: nice 10 ${ratio(ten, layout)}, idle class ${ratio(idle, layout)}`,
    ]),
    `  the rule (the idle class by default only where it costs the agent's job less than ${IDLE_CLASS_MAX_COST}× with the build in Baton's session) says agents.nice: ${idleCost < IDLE_CLASS_MAX_COST ? "idle" : "10"}`,
  ];
}

function key(nice: Nice): string {
  return nice === "idle" ? "idle" : `nice${nice}`;
}

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}

interface Build {
  cpuMs(): number;
  stop(): void;
}

/** The person's build: CPU-bound processes at Baton's priority, in Baton's session or (`ownSession`) a new one, until stopped. */
function startBuild(processes: number, ownSession: boolean): Build {
  // detached: the child calls setsid(), as a terminal's shell does.
  const children: ChildProcess[] = Array.from({ length: processes }, () => spawn(process.execPath, ["-e", "for (;;);"], { stdio: "ignore", detached: ownSession }));
  return {
    cpuMs: () => children.reduce((sum, c) => sum + processCpuMs(c.pid!), 0),
    stop: () => {
      for (const c of children) c.kill("SIGKILL");
    },
  };
}

/** The agent's job process under Baton, found by its script: how long it has run and its CPU so far. */
function jobProcess(baton: BatonProcess): { pid: number; ranMs: number; cpuMs: number } | undefined {
  const uptimeS = Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]);
  for (const pid of baton.childPids().flatMap(childrenOf)) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(JOB_MARKER)) continue;
      // Field 22 of /proc/PID/stat: when the process started, in clock ticks after boot.
      const startedS = Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[19]) / CLOCK_TICKS_PER_SECOND;
      return { pid, ranMs: (uptimeS - startedS) * 1000, cpuMs: processCpuMs(pid) };
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

// The Baton under benchmark: the shipped CLI (dist/, with the Node flags of bin/baton.js) in a
// child process, so nothing the bench or the platform fakes do runs on Baton's event loop. Its
// stdout lines are timestamped as they arrive; memory and CPU are read from /proc.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { monotonicMs } from "../../src/kernel/clock.js";
import { TIMING_FILE_ENV } from "../../src/agents/demo/bench.js";

/** The repository root: where package.json names this package (the bench runs from source or from .bench-build). */
export const REPO_ROOT = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "bin", "baton.js"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error("bench: cannot find the repository root (bin/baton.js)");
    dir = up;
  }
  return dir;
})();
/** The shipped CLI (what bin/baton.js runs). */
export const CLI = join(REPO_ROOT, "dist", "bundle", "cli.js");
const PROBE = join(REPO_ROOT, "bench", "probe.mjs");
/** The Node flags `baton` runs with, read from bin/baton.js's shebang: the bench runs what ships. */
export const NODE_FLAGS = (
  readFileSync(join(REPO_ROOT, "bin", "baton.js"), "utf8")
    .split("\n")[0]
    .match(/node\s+(.*)$/)?.[1] ?? ""
)
  .split(/\s+/)
  .filter(Boolean);
const CLOCK_TICKS_PER_SECOND = 100;
const NS_PER_MS = 1e6;
const STOP_GRACE_MS = 10_000;
/**
 * At rest: Baton and its agents used at most one clock tick of CPU (10 ms) over this window, what
 * an idle daemon with a long poll open uses; a turn's tail or a spare agent booting uses far more.
 */
const QUIET_WINDOW_MS = 300;
const QUIET_MAX_CPU_MS = 1000 / CLOCK_TICKS_PER_SECOND;
const QUIET_TIMEOUT_MS = 60_000;
const RELOAD_TIMEOUT_MS = 10_000;

export interface Line {
  text: string;
  at: number;
}

export interface BatonOptions {
  /** The YAML config. */
  config: string;
  /** Data dir; a fresh temp dir when omitted (removed by stop()). */
  dataDir?: string;
  /** Preload bench/probe.mjs and open an IPC channel to it (event-loop delay, prompt writes, a memory-reducing GC). */
  probe?: boolean;
  env?: NodeJS.ProcessEnv;
  /** Keep every stderr line (the log, JSON lines), timestamped, in `logLines`. */
  keepLog?: boolean;
}

export class BatonProcess {
  readonly lines: Line[] = [];
  /** Stderr lines as they arrived, when asked for (keepLog). */
  readonly logLines: Line[] = [];
  readonly spawnedAt: number;
  readonly dataDir: string;
  readonly timingFile: string;
  private readonly child: ChildProcess;
  private readonly dir: string;
  private readonly configFile: string;
  private readonly keepLog: boolean;
  private readonly ownsDataDir: boolean;
  private nextProbeId = 1;
  private stderr = "";

  constructor(options: BatonOptions) {
    this.dir = mkdtempSync(join(tmpdir(), "baton-bench-"));
    this.ownsDataDir = !options.dataDir;
    this.dataDir = options.dataDir ?? join(this.dir, "data");
    this.timingFile = join(this.dir, "agent-timing.jsonl");
    writeFileSync(this.timingFile, "");
    this.configFile = join(this.dir, "baton.yaml");
    this.keepLog = options.keepLog ?? false;
    writeFileSync(this.configFile, options.config);
    const args = [...NODE_FLAGS, ...(options.probe ? ["--import", PROBE] : []), CLI, "start", "--config", this.configFile, "--data-dir", this.dataDir];
    this.spawnedAt = monotonicMs();
    this.child = spawn(process.execPath, args, {
      cwd: REPO_ROOT,
      env: { ...process.env, ...options.env, [TIMING_FILE_ENV]: this.timingFile },
      stdio: ["ignore", "pipe", "pipe", ...(options.probe ? (["ipc"] as const) : [])],
    });
    let pending = "";
    this.child.stdout!.setEncoding("utf8").on("data", (data: string) => {
      const at = monotonicMs();
      const parts = (pending + data).split("\n");
      pending = parts.pop() ?? "";
      for (const text of parts) this.lines.push({ text, at });
    });
    // Kept (bounded) for the error when Baton dies or a line never comes.
    let pendingLog = "";
    this.child.stderr!.setEncoding("utf8").on("data", (data: string) => {
      this.stderr = (this.stderr + data).slice(-4000);
      if (!options.keepLog) return;
      const at = monotonicMs();
      const parts = (pendingLog + data).split("\n");
      pendingLog = parts.pop() ?? "";
      for (const text of parts) this.logLines.push({ text, at });
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** The first stdout line matching `pattern`; fails loudly when Baton exits or it never comes. */
  async waitForLine(pattern: RegExp, timeoutMs = 30_000): Promise<Line> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const line = this.lines.find((l) => pattern.test(l.text));
      if (line) return line;
      if (this.child.exitCode !== null || this.child.signalCode !== null)
        throw new Error(`bench: baton exited (${this.child.exitCode ?? this.child.signalCode}) before printing ${pattern}:\n${this.output()}`);
      if (Date.now() > deadline) throw new Error(`bench: baton did not print ${pattern} within ${timeoutMs} ms:\n${this.output()}`);
      await sleep(2);
    }
  }

  output(): string {
    return `${this.lines.map((l) => l.text).join("\n")}\n--- stderr ---\n${this.stderr}`;
  }

  /** Resident memory of Baton's own process (agents not included), MB. */
  rssMb(pid = this.pid): number {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
  }

  /** CPU time Baton's process has used so far (user + system), ms. */
  cpuMs(): number {
    return processCpuMs(this.pid);
  }

  /**
   * Time Baton's main thread (its event loop) has spent ready to run while the kernel ran something
   * else, ms (run_delay in /proc/<pid>/task/<pid>/schedstat; the loop's helper threads not included).
   */
  loopWaitMs(): number {
    return Number(readFileSync(`/proc/${this.pid}/task/${this.pid}/schedstat`, "utf8").split(" ")[1]) / NS_PER_MS;
  }

  /** CPU time of Baton and its agent processes together, ms. */
  treeCpuMs(): number {
    let total = this.cpuMs();
    for (const pid of this.childPids()) {
      try {
        total += processCpuMs(pid);
      } catch {
        // the agent exited between the listing and the read
      }
    }
    return total;
  }

  /**
   * Waits until Baton and its agents are at rest (a window with at most a tick of CPU between them):
   * a turn's tail, a spare agent's boot, start-up work done. What comes next, here or in another
   * process, then does not share the cores with them.
   */
  async quiet(timeoutMs = QUIET_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let before = this.treeCpuMs();
    for (;;) {
      await sleep(QUIET_WINDOW_MS);
      const now = this.treeCpuMs();
      if (now - before <= QUIET_MAX_CPU_MS) return;
      if (Date.now() > deadline) throw new Error(`bench: Baton and its agents were still busy after ${timeoutMs} ms (${(now - before).toFixed(0)} ms of CPU in the last ${QUIET_WINDOW_MS} ms)`);
      before = now;
    }
  }

  /** A config reload as `baton reload` makes it (SIGHUP): `config` written, then Baton's answer in its log (keepLog) waited for. */
  async reload(config: string): Promise<void> {
    if (!this.keepLog) throw new Error("bench: reload() reads Baton's log: start it with keepLog");
    const from = this.logLines.length;
    writeFileSync(this.configFile, config);
    this.child.kill("SIGHUP");
    const answer = await until(() => this.logLines.slice(from).find((l) => l.text.includes('"msg":"config reload')), "Baton's answer to the config reload", RELOAD_TIMEOUT_MS, 5);
    if (!answer.text.includes('"msg":"config reloaded')) throw new Error(`bench: the config reload failed: ${answer.text}`);
  }

  /** Pids of Baton's child processes (its agents). */
  childPids(): number[] {
    const pids: number[] = [];
    for (const task of readdirSync(`/proc/${this.pid}/task`)) {
      const text = readFileSync(`/proc/${this.pid}/task/${task}/children`, "utf8").trim();
      if (text) pids.push(...text.split(/\s+/).map(Number));
    }
    return pids;
  }

  /** Asks the preloaded probe (bench/probe.mjs) a question over IPC. */
  probe<T>(cmd: string): Promise<T> {
    const id = this.nextProbeId++;
    return new Promise((resolve, reject) => {
      const onMessage = (message: { id?: number; error?: string }) => {
        if (message.id !== id) return;
        this.child.off("message", onMessage);
        if (message.error) reject(new Error(`bench probe: ${message.error}`));
        else resolve(message as T);
      };
      this.child.on("message", onMessage);
      if (!this.child.send) reject(new Error("bench: baton was started without the probe"));
      else this.child.send({ id, cmd });
    });
  }

  /**
   * Stops Baton (SIGTERM, as a service manager would), waits for it, removes its temp files. `now`:
   * Baton and every process under it get SIGKILL instead, for a suite whose figures are read and
   * whose Baton would spend seconds on a clean stop that nothing measures.
   */
  async stop({ now = false }: { now?: boolean } = {}): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once("exit", resolve));
      if (now) killTree(this.pid);
      else this.child.kill("SIGTERM");
      const timer = setTimeout(() => this.child.kill("SIGKILL"), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
    if (this.ownsDataDir) rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** SIGKILL to `pid` and its descendants, the children first found (a killed parent's children move to init). */
function killTree(pid: number): void {
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...childrenOf(tree[i]));
  for (const member of tree) {
    try {
      process.kill(member, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
}

/** A process's children (Linux); none when it is gone. */
export function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number));
  } catch {
    return [];
  }
}

/**
 * CPU time a process and its descendants have used so far, ms, to the nanosecond (the first field of
 * each thread's /proc schedstat; Linux): fine enough for one prompt, where /proc/PID/stat counts 10 ms ticks.
 * A process that ended meanwhile is no longer counted.
 */
export function treeCpuMs(pid: number): number {
  let ns = 0;
  const pids = [pid];
  for (let i = 0; i < pids.length; i++) {
    pids.push(...childrenOf(pids[i]));
    try {
      for (const task of readdirSync(`/proc/${pids[i]}/task`)) ns += Number(readFileSync(`/proc/${pids[i]}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // gone meanwhile
    }
  }
  return ns / 1e6;
}

/** CPU time a process has used so far (user + system, all its threads), ms. */
export function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  // After "pid (comm) ": field 3 is state, so utime and stime (fields 14 and 15) sit at 11 and 12.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

/**
 * Like Promise.all, but waits for every promise to settle before it fails with the first error:
 * work running side by side cleans up after itself before the caller closes what it uses.
 */
export async function allSettled<T extends readonly unknown[]>(promises: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `check` every few ms until it returns a value; fails loudly with `what` at the deadline. */
export async function until<T>(check: () => T | undefined | false, what: string, timeoutMs = 30_000, everyMs = 2): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

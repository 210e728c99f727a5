// Whether a process id names a running process (for pid files and endpoint files left behind),
// where a command's executable is, and the CPU priority a child process runs at.
import { execFile } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { getPriority, setPriority } from "node:os";
import { delimiter, isAbsolute, join } from "node:path";

/** The lowest CPU priority there is: Unix nice values go from -20 to 19. */
const LOWEST_PRIORITY_NICE = 19;

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else — still alive.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Finds an executable on PATH (or checks an absolute path). */
export function which(command: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates = isAbsolute(command)
    ? [command]
    : (env.PATH ?? "")
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, command));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * A command whose reader went away (`baton handoff list | head -1`) stops quietly, as Unix tools
 * do, instead of dying with an EPIPE stack trace: the reader has all it wanted.
 */
export function exitQuietlyOnBrokenPipe(stream: NodeJS.WriteStream = process.stdout): void {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
}

/**
 * Runs `pid` `by` steps below this process's own CPU priority (as `nice -n by` would start it), at
 * most at the lowest. Lowering a priority needs no privilege. A process that has already exited is
 * left alone: its exit is reported where it is watched.
 */
export function runBelowOwnPriority(pid: number, by: number): void {
  setNice(pid, Math.min(LOWEST_PRIORITY_NICE, getPriority() + by));
}

/** Runs `pid` at the lowest CPU priority there is, whatever this process's own (as runBelowOwnPriority). */
export function runAtLowestPriority(pid: number): void {
  setNice(pid, LOWEST_PRIORITY_NICE);
}

function setNice(pid: number, nice: number): void {
  try {
    setPriority(pid, nice);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}

/** How a child went into Linux's idle scheduling class: done, or why not (a refusal with chrt's reason). */
export type IdleClassOutcome = "idle" | "no-chrt" | "exited" | `refused: ${string}`;

/**
 * Moves every thread of `pid` into Linux's idle scheduling class (SCHED_IDLE) with util-linux's
 * `chrt`; what it starts later inherits the class. An idle-class process runs on the CPU time no
 * other process wants, and gives way at once when one wakes up. A niced process does not: the
 * kernel's scheduler (EEVDF, Linux 6.6 and later) lets the task on a core finish its time slice
 * (some 1.5 ms on a 2-core machine) before a task that woke up gets the core, whatever their nice
 * values. No privilege is needed. "no-chrt" where there is no such class or no `chrt` to set it
 * (not Linux, or an image without util-linux); "exited" when the process is already gone; "refused"
 * where the system says no (a sandbox that filters the call): a scheduling hint that cannot be had
 * is reported, and the agent runs on without it.
 */
export function runInIdleClass(pid: number, chrt = "chrt"): Promise<IdleClassOutcome> {
  if (process.platform !== "linux") return Promise.resolve("no-chrt");
  return new Promise((resolve) => {
    execFile(chrt, ["--idle", "--all-tasks", "--pid", "0", String(pid)], (error, _stdout, stderr) => {
      if (!error) resolve("idle");
      else if ((error as NodeJS.ErrnoException).code === "ENOENT") resolve("no-chrt");
      else if (!isProcessAlive(pid)) resolve("exited");
      else resolve(`refused: ${stderr.trim() || error.message}`);
    });
  });
}

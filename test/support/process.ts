// Waiting for a child process to end, whether or not it already has: a listener attached after
// the exit event never fires, and a test waiting on it hangs until its time-out.
import type { ChildProcess } from "node:child_process";
import { readdirSync, readlinkSync } from "node:fs";

/** The child's exit code (null when a signal ended it), once it has exited. */
export function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

/** Stops a child as a service manager would: SIGTERM, then SIGKILL if it has not ended within `graceMs`. */
export async function stopGracefully(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = exitOf(child);
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

const PROCESS_GONE_POLL_MS = 20;

/**
 * Ends every process still working in `dir` (its working directory there): agents a Baton started
 * before it was killed with SIGKILL outlive it, and one still starting up recreates its data folder
 * under `dir` after the test removed it. Resolves once none is left, or after `timeoutMs`.
 */
export async function endProcessesIn(dir: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = readdirSync("/proc").filter((pid) => /^\d+$/.test(pid) && Number(pid) !== process.pid && inside(cwdOf(pid), dir));
    if (left.length === 0 || Date.now() > deadline) return;
    for (const pid of left) {
      try {
        process.kill(Number(pid), "SIGKILL");
      } catch {
        // Gone meanwhile.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, PROCESS_GONE_POLL_MS));
  }
}

function inside(path: string | undefined, dir: string): boolean {
  return path === dir || !!path?.startsWith(`${dir}/`);
}

function cwdOf(pid: string): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
}

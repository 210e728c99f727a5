// Whether a process id names a running process (for pid files and endpoint files left behind), and
// the CPU priority a child process runs at.
import { getPriority, setPriority } from "node:os";

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
  try {
    setPriority(pid, Math.min(LOWEST_PRIORITY_NICE, getPriority() + by));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}

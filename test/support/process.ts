// Waiting for a child process to end, whether or not it already has: a listener attached after
// the exit event never fires, and a test waiting on it hangs until its time-out.
import type { ChildProcess } from "node:child_process";

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

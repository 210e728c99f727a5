// Whether a process id names a running process (for pid files and endpoint files left behind).

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

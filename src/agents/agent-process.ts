// The operating-system process under an agent host: spawned from the agent's command, its stderr
// kept (bounded, scrubbed) for the crash report, its exit awaited, and stopped by closing stdin,
// then SIGTERM, then SIGKILL after a grace period. The host speaks ACP over its stdin and stdout.
import { spawn, type ChildProcess } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { AgentError } from "../kernel/errors.js";
import type { AgentKind } from "./products/index.js";
import { StderrTail } from "./stderr.js";

const STOP_GRACE_MS = 2_000;
/** How long an exit waits for the rest of the agent's stderr (a child of the agent may hold the pipe open). */
const STDERR_DRAIN_MS = 200;

export interface ProcessExit {
  code: number | null;
  signal: string | null;
}

interface SpawnRequest {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export class AgentProcess {
  private child?: ChildProcess;
  private readonly stderr = new StderrTail();
  /** Set once the process is gone (or never started). */
  exit?: ProcessExit;
  /** Resolves once the process is gone. */
  readonly exited: Promise<void>;
  private markExited!: () => void;
  /** Set by stop(): an exit from then on was asked for. */
  stopping = false;

  /** `onExit` hears of the exit once `exit` is set and the rest of stderr was read. */
  constructor(
    private readonly kind: AgentKind,
    private readonly onExit: (exit: ProcessExit) => void,
  ) {
    this.exited = new Promise((resolve) => (this.markExited = resolve));
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get alive(): boolean {
    return !!this.child && !this.exit;
  }

  get stdin(): Writable {
    return this.child!.stdin!;
  }

  get stdout(): Readable {
    return this.child!.stdout!;
  }

  /** Spawns the process; resolves once it runs, rejects with a fatal AgentError when it cannot start (not installed, say). */
  spawn({ command, args, cwd, env }: SpawnRequest): Promise<void> {
    const child = spawn(command, args, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    this.child = child;
    const spawned = new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", (error: NodeJS.ErrnoException) => {
        // A process that never started emits no exit event.
        if (child.pid === undefined) {
          this.exit = { code: null, signal: null };
          this.markExited();
        }
        const { displayName, installHint } = this.kind;
        if (error.code === "ENOENT") {
          reject(new AgentError(`${displayName} is not installed: \`${command}\` was not found on PATH. Install it: ${installHint}`, { fatal: true, cause: error }));
        } else reject(new AgentError(`Could not start ${displayName}: ${error.message}`, { fatal: true, cause: error }));
      });
    });
    child.stderr!.on("data", (chunk: Buffer) => this.stderr.push(chunk));
    const stderrDrained = new Promise((resolve) => child.stderr!.once("close", resolve));
    child.on("exit", async (code, signal) => {
      // What the agent wrote last (the reason it died) can still be in the pipe when it exits.
      await Promise.race([stderrDrained, new Promise((r) => setTimeout(r, STDERR_DRAIN_MS))]);
      this.exit = { code, signal };
      this.markExited();
      this.onExit(this.exit);
    });
    return spawned;
  }

  /** Stdin closed, then SIGTERM, then SIGKILL after a grace period; resolves once the process is gone. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (!this.alive) return;
    this.child!.stdin?.end();
    this.child!.kill("SIGTERM");
    const timer = setTimeout(() => this.child?.kill("SIGKILL"), STOP_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }

  /** The last few lines of the agent's stderr, scrubbed and short, for the chat. */
  stderrTail(): string {
    return this.stderr.forChat();
  }

  /** Everything kept of the agent's stderr (bounded, scrubbed), for the log. */
  stderrForLog(): string {
    return this.stderr.forLog();
  }
}

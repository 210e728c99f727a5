// Room for subagent processes within agents.max_live_hosts. Subagents count like thread hosts;
// one that does not fit waits here, in order, until a process ends or an idle host can be
// stopped (the supervisor decides that, least recently used first). A chat's own turn never
// waits here: thread hosts start at once.
import { SubagentError } from "../../kernel/errors.js";

interface Waiter {
  resolve(release: () => void): void;
  reject(error: unknown): void;
}

export class HostRoom {
  private held = 0;
  private readonly waiting: Waiter[] = [];
  private pumping = false;
  private again = false;

  /** `makeRoom` frees a place for one more process (counting `held`), or says there is none now. */
  constructor(private readonly makeRoom: () => Promise<boolean>) {}

  /** Subagent processes running or starting. */
  get count(): number {
    return this.held;
  }

  /** How many wait for room. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Waits for room; the result gives it back. Aborting the signal leaves the queue. */
  acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(new SubagentError("cancelled"));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve: (release) => {
          signal.removeEventListener("abort", onAbort);
          resolve(release);
        },
        reject,
      };
      const onAbort = () => {
        const at = this.waiting.indexOf(waiter);
        if (at !== -1) this.waiting.splice(at, 1);
        reject(new SubagentError("cancelled"));
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(waiter);
      this.pump();
    });
  }

  /** Something ended or went idle: let waiters in while there is room. */
  pump(): void {
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    void this.admit().finally(() => {
      this.pumping = false;
      if (this.again) {
        this.again = false;
        this.pump();
      }
    });
  }

  private async admit(): Promise<void> {
    while (this.waiting.length > 0) {
      let room: boolean;
      try {
        room = await this.makeRoom();
      } catch {
        room = false;
      }
      if (!room) return;
      const waiter = this.waiting.shift();
      if (!waiter) return;
      this.held++;
      let released = false;
      waiter.resolve(() => {
        if (released) return;
        released = true;
        this.held--;
        this.pump();
      });
    }
  }
}

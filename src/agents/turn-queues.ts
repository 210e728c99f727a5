// Turns run one at a time per thread, in the order their prompts came (FIFO). Paused (a daemon
// shutting down), no new turn starts and queued prompts stay queued.
import type { Queue, TurnRequest } from "./supervisor-types.js";

export class TurnQueues {
  private readonly queues = new Map<string, Queue>();
  private pausedFlag = false;
  private readonly settledWaiters: Array<() => void> = [];

  constructor(
    private readonly runTurn: (request: TurnRequest) => Promise<void>,
    /** A prompt submitted with an id left the queue: its turn starts, or the queue was dropped. */
    private readonly taken: (threadId: string, id: string, why: "started" | "dropped") => void,
  ) {}

  /** Queues a prompt; returns how many turns are ahead of it (0 = it runs now, unless paused). */
  submit(request: TurnRequest): number {
    const { threadId } = request;
    let q = this.queues.get(threadId);
    if (!q) this.queues.set(threadId, (q = { items: [], running: false, drained: [] }));
    const ahead = q.items.length + (q.running ? 1 : 0);
    q.items.push(request);
    if (!q.running && !this.pausedFlag) void this.pump(threadId, q);
    return ahead;
  }

  /** True when a prompt submitted now would wait (a turn runs or is queued, or the queues are paused). */
  wouldWait(threadId: string): boolean {
    const q = this.queues.get(threadId);
    return this.pausedFlag || !!q?.running || (q?.items.length ?? 0) > 0;
  }

  get paused(): boolean {
    return this.pausedFlag;
  }

  /** Starts no new turn from now on; resolves once no turn is running. Queued prompts stay queued. */
  pause(): Promise<void> {
    this.pausedFlag = true;
    if (![...this.queues.values()].some((q) => q.running)) return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  /** Resolves once the thread has no running or queued turn. */
  drained(threadId: string): Promise<void> {
    const q = this.queues.get(threadId);
    if (!q || (!q.running && q.items.length === 0)) return Promise.resolve();
    return new Promise((resolve) => q.drained.push(resolve));
  }

  /** Prompts of the thread waiting behind the running turn. */
  waiting(threadId: string): number {
    return this.queues.get(threadId)?.items.length ?? 0;
  }

  /** Drops the thread's waiting prompts (its host is stopped for good). */
  drop(threadId: string): void {
    const q = this.queues.get(threadId);
    if (!q) return;
    for (const item of q.items.splice(0)) {
      item.dropped?.();
      if (item.id) this.taken(threadId, item.id, "dropped");
    }
  }

  private async pump(threadId: string, q: Queue): Promise<void> {
    q.running = true;
    try {
      while (q.items.length > 0 && !this.pausedFlag) {
        const item = q.items.shift()!;
        if (item.id) this.taken(threadId, item.id, "started");
        await this.runTurn(item);
      }
    } finally {
      q.running = false;
      for (const resolve of q.drained.splice(0)) resolve();
      if (this.pausedFlag && ![...this.queues.values()].some((other) => other.running)) for (const resolve of this.settledWaiters.splice(0)) resolve();
    }
  }
}

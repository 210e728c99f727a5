// The threads' live agent hosts, in least-recently-used order, and the supervisor's idle policy: a
// host whose thread has no turn running or queued shuts down after agents.idle_shutdown, and when
// room is needed the least recently used idle host stops first. A host still starting is never idle.
import { monotonicMs } from "../kernel/clock.js";
import type { Logger } from "../kernel/log.js";
import type { Live, SupervisorEvent } from "./supervisor-types.js";
import type { TurnQueues } from "./turn-queues.js";

export interface LiveHostsDeps {
  log: Logger;
  report(event: SupervisorEvent): void | Promise<void>;
  /** The threads' turns: an idle host's thread has none waiting; one shut down keeps none queued. */
  turns: Pick<TurnQueues, "waiting" | "drop">;
  idleShutdownMs(): number;
}

export class LiveHosts {
  /** By thread id, least recently used first (Map iteration order). */
  private readonly byThread = new Map<string, Live>();

  constructor(private readonly deps: LiveHostsDeps) {}

  get(threadId: string): Live | undefined {
    return this.byThread.get(threadId);
  }

  set(threadId: string, live: Live): void {
    this.byThread.set(threadId, live);
  }

  /** Forgets the thread's host without stopping it (its process is gone, or going). */
  delete(threadId: string): void {
    this.byThread.delete(threadId);
  }

  get size(): number {
    return this.byThread.size;
  }

  threadIds(): string[] {
    return [...this.byThread.keys()];
  }

  /**
   * The host was used: it becomes the most recently used, and its idle time starts again. It stays
   * at least until `heldUntil` (monotonic ms) when agents.idle_shutdown ends sooner (a person typing).
   */
  touch(threadId: string, live: Live, heldUntil = 0): void {
    // Re-insert to mark it most recently used.
    this.byThread.delete(threadId);
    this.byThread.set(threadId, live);
    clearTimeout(live.idleTimer);
    void this.deps.report({ type: "capacity-freed" });
    void this.deps.report({ type: "host-state", threadId });
    live.idleTimer = setTimeout(
      () => {
        if (live.turn || this.deps.turns.waiting(threadId) > 0) return;
        this.deps.log.info({ thread: threadId }, "idle agent host shut down");
        this.deps.turns.drop(threadId);
        void this.stop(threadId);
      },
      Math.max(this.deps.idleShutdownMs(), heldUntil - monotonicMs()),
    );
    live.idleTimer.unref();
  }

  /** Stops the thread's process (its running turn cancelled, with its approvals); its queued prompts are kept. */
  async stop(threadId: string): Promise<void> {
    const live = this.byThread.get(threadId);
    if (!live) return;
    if (live.turn) {
      live.host.cancel();
      live.turn.cancelApprovals();
    }
    clearTimeout(live.idleTimer);
    this.byThread.delete(threadId);
    await live.host.stop();
  }

  /** Stops the least recently used idle host; false when every host is busy or starting. */
  async stopLeastRecentlyUsedIdle(): Promise<boolean> {
    const idle = [...this.byThread.entries()].find(([, l]) => !l.turn && !l.starting);
    if (!idle) return false;
    this.deps.log.info({ thread: idle[0] }, "stopping least recently used idle agent host");
    await this.stop(idle[0]);
    return true;
  }
}

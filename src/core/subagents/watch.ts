// Waiting for a thread's subagents to reach some state (all finished, a round done by everyone):
// every change of a thread's subagents wakes the waits of that thread, which check again.

export class ThreadWatchers {
  private readonly watchers = new Map<string, Set<() => void>>();

  notify(threadId: string): void {
    for (const check of [...(this.watchers.get(threadId) ?? [])]) check();
  }

  /** Resolves true once `condition` holds, false when the time is up or the signal aborts. */
  until(threadId: string, condition: () => boolean, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<boolean> {
    if (condition()) return Promise.resolve(true);
    if (options.signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      let set = this.watchers.get(threadId);
      if (!set) this.watchers.set(threadId, (set = new Set()));
      const done = (value: boolean) => {
        set!.delete(check);
        if (set!.size === 0 && this.watchers.get(threadId) === set) this.watchers.delete(threadId);
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        resolve(value);
      };
      const check = () => {
        if (condition()) done(true);
      };
      const onAbort = () => done(false);
      const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => done(false), options.timeoutMs);
      options.signal?.addEventListener("abort", onAbort, { once: true });
      set.add(check);
    });
  }
}

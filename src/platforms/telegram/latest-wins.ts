// One change at a time per message, newest first: while an edit of a message is on its way to
// Telegram, the edits that arrive meanwhile collapse into the newest one. Streaming only needs the
// latest text, a slow (paced) chat gets fewer edits instead of a backlog, and two edits of one
// message never race (which could, for instance, create its continuation message twice).

interface Waiter {
  version: number;
  resolve(): void;
  reject(error: unknown): void;
}

interface Slot<V> {
  latest: V;
  version: number;
  waiters: Waiter[];
}

export class LatestWins<V> {
  private readonly slots = new Map<string, Slot<V>>();

  /** Resolves once `value` or a newer value for `key` has been applied; rejects if that attempt failed. */
  submit(key: string, value: V, apply: (value: V) => Promise<void>): Promise<void> {
    let slot = this.slots.get(key);
    const running = slot !== undefined;
    if (!slot) {
      slot = { latest: value, version: 0, waiters: [] };
      this.slots.set(key, slot);
    }
    slot.latest = value;
    const version = ++slot.version;
    const settled = new Promise<void>((resolve, reject) => slot.waiters.push({ version, resolve, reject }));
    if (!running) void this.run(key, slot, apply);
    return settled;
  }

  private async run(key: string, slot: Slot<V>, apply: (value: V) => Promise<void>): Promise<void> {
    for (;;) {
      const version = slot.version;
      let failure: { error: unknown } | undefined;
      try {
        await apply(slot.latest);
      } catch (error) {
        failure = { error };
      }
      const done = slot.waiters.filter((waiter) => waiter.version <= version);
      slot.waiters = slot.waiters.filter((waiter) => waiter.version > version);
      for (const waiter of done) failure ? waiter.reject(failure.error) : waiter.resolve();
      if (slot.version === version) break;
    }
    this.slots.delete(key);
  }
}

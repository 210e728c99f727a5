// Small in-memory structures every layer uses: a set that forgets its oldest entries (duplicate
// events), and a queue that runs tasks one after another per key (one route, one line).

/** A set that forgets its oldest entries beyond `capacity`. */
export class BoundedSet {
  private readonly entries = new Set<string>();
  constructor(private readonly capacity: number) {}

  has(key: string): boolean {
    return this.entries.has(key);
  }

  add(key: string): void {
    this.entries.delete(key);
    this.entries.add(key);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.values().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Adds the key; returns false when it was already there (a duplicate). */
  addIfNew(key: string): boolean {
    if (this.entries.has(key)) return false;
    this.add(key);
    return true;
  }
}

/** Runs tasks one after another per key (a channel's messages, a route's inbound events keep their order). */
export class KeyedQueue {
  private readonly chains = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const result = (this.chains.get(key) ?? Promise.resolve()).then(task, task);
    const settled = result.catch(() => undefined);
    this.chains.set(key, settled);
    // Forget idle keys so the map does not grow with every channel ever seen.
    void settled.then(() => {
      if (this.chains.get(key) === settled) this.chains.delete(key);
    });
    return result;
  }
}

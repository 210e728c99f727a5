// Group commit for an ordered log: every append that arrives while a write is in flight goes into
// the next single write, so a burst costs a few writes, not one each, and each caller resolves only
// once its own items are durable. Writes run one at a time (and with `exclusive` work such as
// compaction), in the order the appends were made.

interface Waiting<T> {
  items: T[];
  resolve: () => void;
  reject: (e: unknown) => void;
}

export class GroupCommit<T> {
  private pending: Array<Waiting<T>> = [];
  private flushing?: Promise<void>;
  private queue: Promise<unknown> = Promise.resolve();

  /** `write` stores a batch durably; `failure` turns its error into what the callers are given. */
  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly failure: (error: unknown) => unknown,
  ) {}

  append(items: T[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ items, resolve, reject });
      this.flushing ??= this.exclusive(() => this.flushLoop());
    });
  }

  /** Runs `op` between writes, never during one. */
  exclusive<R>(op: () => Promise<R>): Promise<R> {
    const run = this.queue.then(op, op);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Resolves when every write and exclusive op queued so far has finished. */
  async idle(): Promise<void> {
    await this.queue;
  }

  private async flushLoop(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const batch = this.pending;
        this.pending = [];
        try {
          await this.write(batch.flatMap((b) => b.items));
          for (const b of batch) b.resolve();
        } catch (error) {
          const failure = this.failure(error);
          for (const b of batch) b.reject(failure);
        }
      }
    } finally {
      this.flushing = undefined;
    }
  }
}

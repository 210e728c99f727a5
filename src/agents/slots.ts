// A counting semaphore for agent starts: at most `size` at once, the rest wait in order, and a
// waiter whose start is abandoned (/stop) leaves the line. A start that makes no progress for
// `stallMs` gives its slot up (it may go on within its own step timeouts): an agent that never
// answers must not make every new conversation wait behind it.
import { HostStoppedError } from "./host.js";

/** A held slot: `progress` says the start moved on (its stall timer starts again); `release` ends it. */
export interface SlotLease {
  progress(): void;
  release(): void;
}

interface SlotOptions {
  /** The slot is given up after this long without progress (default: never). */
  stallMs?: number;
  /** Called when a holder gave its slot up for want of progress. */
  onStall?: () => void;
}

/** A counting semaphore: at most `size` holders at once, the rest wait in order. */
export class Slots {
  private used = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(
    private readonly size: number,
    private readonly options: SlotOptions = {},
  ) {}

  /** Starts that hold a slot now. */
  get holders(): number {
    return this.used;
  }

  /**
   * Resolves with the lease once a slot is free; rejects if `signal` aborts first. `onWait` is
   * called at once when the caller has to wait.
   */
  async acquire(signal: AbortSignal, onWait?: () => void): Promise<SlotLease> {
    if (signal.aborted) throw new HostStoppedError();
    if (this.used >= this.size) {
      onWait?.();
      await new Promise<void>((resolve, reject) => {
        const waiter = () => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        };
        const onAbort = () => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          reject(new HostStoppedError());
        };
        signal.addEventListener("abort", onAbort, { once: true });
        this.waiting.push(waiter);
      });
    } else this.used++;
    return this.lease();
  }

  private lease(): SlotLease {
    const { stallMs, onStall } = this.options;
    let held = true;
    let timer: NodeJS.Timeout | undefined;
    const giveUp = () => {
      if (!held) return;
      held = false;
      clearTimeout(timer);
      const next = this.waiting.shift();
      if (next) next();
      else this.used--;
    };
    const arm = () => {
      if (!held || stallMs === undefined) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        onStall?.();
        giveUp();
      }, stallMs);
      timer.unref();
    };
    arm();
    return { progress: arm, release: giveUp };
  }
}

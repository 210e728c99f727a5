// A counting semaphore for agent starts: at most `size` at once, the rest wait in order, and a
// waiter whose start is abandoned (/stop) leaves the line.
import { HostStoppedError } from "./host.js";

/** A counting semaphore: at most `size` holders at once, the rest wait in order. */
export class Slots {
  private used = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(private readonly size: number) {}
  /** Resolves with the release function once a slot is free; rejects if `signal` aborts first. */
  async acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) throw new HostStoppedError();
    if (this.used >= this.size) {
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
    return () => {
      const next = this.waiting.shift();
      if (next) next();
      else this.used--;
    };
  }
}

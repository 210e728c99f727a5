// The two shapes platforms give their limits in. A token bucket ("about one a second, short bursts
// tolerated"): `burst` calls may go at once from rest, then one more each 1/perSecond s. A sliding
// window ("at most N in any minute"): the strict reading of a count per period, which no burst
// may push past. Both answer "how long until the next call may go" without taking anything, so
// the scheduler can decide when to wake; `take` records a call that started, and `ended` moves it
// to when it ended: the platform counts a call when it arrives, somewhere in between, and a call
// whose request was slow (a long render, a busy network) must not let the next one in closer.
import type { BucketRate, WindowRate } from "../../platforms/contract.js";

const MS_PER_SECOND = 1_000;

export class TokenBucket {
  private tokens: number;
  /** Calls started and not ended: their tokens are spoken for, and taken when they end. */
  private pending = 0;
  private updatedAt = -Infinity;
  private readonly msPerToken: number;

  constructor(private readonly rate: BucketRate) {
    this.tokens = rate.burst;
    this.msPerToken = MS_PER_SECOND / rate.perSecond;
  }

  /** Milliseconds until `calls` more calls may go (0: now). */
  delayMs(now: number, calls = 1): number {
    this.refill(now);
    const free = this.tokens - this.pending;
    return free >= calls ? 0 : Math.ceil((calls - free) * this.msPerToken);
  }

  take(now: number): void {
    this.refill(now);
    this.pending++;
  }

  /** The call taken at `start` ended at `end`: its token goes now, so what refilled meanwhile is not lent to the next call. */
  ended(_start: number, end: number): void {
    this.refill(end);
    this.pending = Math.max(0, this.pending - 1);
    this.tokens -= 1;
  }

  isFull(now: number): boolean {
    this.refill(now);
    return this.pending === 0 && this.tokens >= this.rate.burst;
  }

  private refill(now: number): void {
    if (now > this.updatedAt) {
      this.tokens = this.updatedAt === -Infinity ? this.rate.burst : Math.min(this.rate.burst, this.tokens + (now - this.updatedAt) / this.msPerToken);
      this.updatedAt = now;
    }
  }
}

export class SlidingWindow {
  /** Start times of the calls in the current window, oldest first. */
  private readonly times: number[] = [];

  constructor(private readonly rate: WindowRate) {}

  /** Milliseconds until `calls` more calls may go (0: now). */
  delayMs(now: number, calls = 1): number {
    this.prune(now);
    const { times } = this;
    const over = times.length + calls - this.rate.calls;
    if (over <= 0) return 0;
    return over > times.length ? Infinity : times[over - 1] + this.rate.windowMs - now;
  }

  take(now: number): void {
    this.prune(now);
    this.times.push(now);
  }

  /** The call taken at `start` ended at `end`: it counts from then. */
  ended(start: number, end: number): void {
    const { times } = this;
    let i = times.lastIndexOf(start);
    if (i === -1) return;
    times[i] = end;
    // Kept in order: later calls that started before this one ended move ahead of it.
    for (; i + 1 < times.length && times[i + 1] < times[i]; i++) [times[i], times[i + 1]] = [times[i + 1], times[i]];
  }

  isEmpty(now: number): boolean {
    this.prune(now);
    return this.times.length === 0;
  }

  private prune(now: number): void {
    const before = now - this.rate.windowMs;
    let drop = 0;
    while (drop < this.times.length && this.times[drop] <= before) drop++;
    if (drop > 0) this.times.splice(0, drop);
  }
}

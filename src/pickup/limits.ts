// Brute-force limits for /pickup: failed pickups per sender (5 a minute) and in total (60 a
// minute). A code has 32^4 ≈ 1M values and lives 120 s, so these bound a guesser to a negligible chance.
//
// Design:
// - Every attempt first takes a point from the sender's budget and from the total (atomic in memory
//   and Redis, so concurrent guesses are counted). Past its own budget a sender is refused before
//   the code is looked at. A right code gives both points back: only failures are charged.
// - The total never refuses a sender under its own limit: whoever holds the right code gets in,
//   even while someone else is spending the total. Instead, once the total is spent, every failure
//   also counts against its sender for LOCKDOWN_WINDOW_SEC, so a guesser spread over many sender
//   ids gets its 5 tries per id every ten minutes instead of every minute, while a person who
//   mistyped a few times still gets in with the right code.
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import RateLimiterRes from "rate-limiter-flexible/lib/RateLimiterRes.js";
import type { HandoverKv } from "./kv.js";

const LIMIT_WINDOW_SEC = 60;
/** How long a failure made while the total was spent counts against its sender. */
const LOCKDOWN_WINDOW_SEC = 600;
const TOTAL_KEY = "all";

export type Admission = { ok: true; settle(won: boolean): Promise<void> } | { ok: false; scope: "sender"; retryAfterMs: number };

export interface PickupLimitSettings {
  failedPerSenderPerMin: number;
  failedTotalPerMin: number;
  /** The limits' window (default a minute; shorter in tests). */
  windowSec?: number;
  lockdownWindowSec?: number;
}

export class PickupLimits {
  private readonly perSender: RateLimiterAbstract;
  private readonly lockdown: RateLimiterAbstract;
  private readonly total: RateLimiterAbstract;
  private readonly perSenderPoints: number;

  constructor(kv: HandoverKv, limits: PickupLimitSettings) {
    const window = limits.windowSec ?? LIMIT_WINDOW_SEC;
    this.perSenderPoints = limits.failedPerSenderPerMin;
    this.perSender = kv.limiter({ keyPrefix: "failed-sender", points: limits.failedPerSenderPerMin, durationSec: window });
    this.lockdown = kv.limiter({ keyPrefix: "failed-sender-lockdown", points: limits.failedPerSenderPerMin, durationSec: limits.lockdownWindowSec ?? LOCKDOWN_WINDOW_SEC });
    this.total = kv.limiter({ keyPrefix: "failed-total", points: limits.failedTotalPerMin, durationSec: window });
  }

  /** True while failures of all senders in this window have reached the total. */
  async totalSpent(): Promise<boolean> {
    const res = await this.total.get(TOTAL_KEY);
    return !!res && res.remainingPoints <= 0;
  }

  /** Whether this sender may try a code now; call `settle` with the outcome when admitted. */
  async admit(sender: string): Promise<Admission> {
    const slow = await this.lockdown.get(sender);
    if (slow && slow.consumedPoints >= this.perSenderPoints) return { ok: false, scope: "sender", retryAfterMs: slow.msBeforeNext };
    try {
      await this.perSender.consume(sender);
    } catch (error) {
      if (error instanceof RateLimiterRes) return { ok: false, scope: "sender", retryAfterMs: error.msBeforeNext };
      throw error;
    }
    let spent = false;
    try {
      await this.total.consume(TOTAL_KEY);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      spent = true; // the attempt is still checked: the total never blocks a right code
    }
    return {
      ok: true,
      settle: async (won) => {
        if (won) {
          await this.perSender.reward(sender, 1);
          await this.total.reward(TOTAL_KEY, 1);
        } else if (spent) {
          await this.lockdown.penalty(sender, 1);
        }
      },
    };
  }
}

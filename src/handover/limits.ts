// Brute-force limits for /pickup (SPEC §5): failed pickups per sender (5 a minute) and in total
// (60 a minute). A code has 32^4 ≈ 1M values, so these bound a guesser to a negligible chance.
//
// Design, so the total limit never locks out a sender who has not failed:
// - Every attempt first takes a point from the sender's budget (atomic in memory and Redis). Past
//   the budget the attempt is refused before the code is looked at, so a blocked sender cannot go
//   on guessing. A correct code gives the point back.
// - The total budget is only charged, and only enforced, for senders who already failed in this
//   window. A sender's first attempt of a window is always checked against the codes; if it fails,
//   it is added to the total afterwards. An attacker can exhaust the total, but the person with the
//   real code (who has not failed) still gets in.
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import RateLimiterRes from "rate-limiter-flexible/lib/RateLimiterRes.js";
import type { HandoverKv } from "./kv.js";

export const LIMIT_WINDOW_SEC = 60;
const TOTAL_KEY = "all";

export type Admission =
  | { ok: true; settle(won: boolean): Promise<void> }
  | { ok: false; scope: "sender" | "total"; retryAfterMs: number };

export class PickupLimits {
  private readonly perSender: RateLimiterAbstract;
  private readonly total: RateLimiterAbstract;

  constructor(kv: HandoverKv, limits: { failedPerSenderPerMin: number; failedTotalPerMin: number }) {
    this.perSender = kv.limiter({ keyPrefix: "failed-sender", points: limits.failedPerSenderPerMin, durationSec: LIMIT_WINDOW_SEC });
    this.total = kv.limiter({ keyPrefix: "failed-total", points: limits.failedTotalPerMin, durationSec: LIMIT_WINDOW_SEC });
  }

  /** Whether this sender may try a code now; call `settle` with the outcome when admitted. */
  async admit(sender: string): Promise<Admission> {
    let charged: RateLimiterRes;
    try {
      charged = await this.perSender.consume(sender);
    } catch (error) {
      return refusal(error, "sender");
    }
    const failedBefore = charged.consumedPoints > 1;
    if (failedBefore) {
      try {
        await this.total.consume(TOTAL_KEY);
      } catch (error) {
        return refusal(error, "total");
      }
    }
    return {
      ok: true,
      settle: async (won) => {
        if (won) {
          await this.perSender.reward(sender, 1);
          if (failedBefore) await this.total.reward(TOTAL_KEY, 1);
        } else if (!failedBefore) {
          await this.total.penalty(TOTAL_KEY, 1);
        }
      },
    };
  }
}

function refusal(error: unknown, scope: "sender" | "total"): Admission {
  if (error instanceof RateLimiterRes) return { ok: false, scope, retryAfterMs: error.msBeforeNext };
  throw error;
}

// Where per-person counts live: the store pickup codes and their limits use (memory, Redis with
// store.kv, PostgreSQL with store.url), so several instances share them. Counts are kept with
// rate-limiter-flexible's atomic add (INCRBY in Redis, an upsert in PostgreSQL), which every
// backend has; its own windows are not used: each of our windows has its own key (windows.ts),
// and the limiter's duration only makes sure a key outlives its window.
import { Keyv } from "keyv";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import RateLimiterMemory from "rate-limiter-flexible/lib/RateLimiterMemory.js";

/** The shape of the daemon's key-value backend (pickup/kv.ts, store/postgres/codes.ts). */
export interface LimitStore {
  /** A key-value map with expiry, for the list of who used Baton today. */
  codes: Keyv;
  limiter(spec: { keyPrefix: string; points: number; durationSec: number }): RateLimiterAbstract;
}

/** For a core started without the daemon's store (it has one in memory then). */
export function memoryLimitStore(): LimitStore {
  return {
    codes: new Keyv({ namespace: "baton:limits" }),
    limiter: ({ keyPrefix, points, durationSec }) => new RateLimiterMemory({ keyPrefix, points, duration: durationSec }),
  };
}

/** The largest count a key holds exactly (PostgreSQL keeps points in a bigint column, Redis in 64 bits). */
const MAX_POINTS = Number.MAX_SAFE_INTEGER;

/** Named counters that only grow (and give back what they took), each key living `durationSec`. */
export class Counters {
  private readonly limiter: RateLimiterAbstract;

  constructor(store: LimitStore, keyPrefix: string, durationSec: number) {
    this.limiter = store.limiter({ keyPrefix: `limits-${keyPrefix}`, points: MAX_POINTS, durationSec });
  }

  /** Adds `amount` (a whole number) and answers the total after it. */
  async add(key: string, amount: number): Promise<number> {
    return (await this.limiter.penalty(key, amount)).consumedPoints;
  }

  async take(key: string, amount: number): Promise<void> {
    await this.limiter.reward(key, amount);
  }

  async get(key: string): Promise<number> {
    return (await this.limiter.get(key))?.consumedPoints ?? 0;
  }
}

/**
 * Places that one holder at a time may take (a person's running turns): a place is a key with one
 * point, taken by an atomic consume (of two racing takers one wins), kept by its holder renewing a
 * short lease, and freed by deleting it — or by the lease running out when its instance died.
 */
export class Places {
  private readonly limiter: RateLimiterAbstract;

  constructor(
    store: LimitStore,
    keyPrefix: string,
    private readonly leaseSec: number,
  ) {
    this.limiter = store.limiter({ keyPrefix: `limits-${keyPrefix}`, points: 1, durationSec: leaseSec });
  }

  /** True when the place was free and is now this caller's. */
  async take(key: string): Promise<boolean> {
    try {
      await this.limiter.consume(key, 1);
      return true;
    } catch (error) {
      if (error instanceof Error) throw error; // the store failed; a refusal is a RateLimiterRes
      return false;
    }
  }

  async renew(key: string): Promise<void> {
    await this.limiter.set(key, 1, this.leaseSec);
  }

  async free(key: string): Promise<void> {
    await this.limiter.delete(key);
  }

  async taken(key: string): Promise<boolean> {
    return (await this.limiter.get(key)) !== null;
  }
}

// Starting the platforms so that one that cannot be reached does not keep the others from serving.
// Each platform's first start runs side by side; what it fails with decides what follows (the
// same reading for every kind, startFailureOf in platforms/kit/errors.ts):
// - refused (a bad token, a config that cannot work): the whole start stops with its message,
//   since retrying cannot fix it;
// - unreachable (DNS, network, 5xx): the platform is `degraded` and retried in the background
//   with capped, jittered backoff until it connects, while the others serve.
import type { PlatformAdapter, PlatformCore, StartInfo } from "../platforms/contract.js";
import { startFailureOf } from "../platforms/kit/errors.js";
import { userMessageOf } from "../kernel/errors.js";
import type { Logger } from "../kernel/log.js";
import type { PlatformHealth } from "../ops/snapshot.js";

/** The first retry waits about this long; each later one twice as long as the one before… */
export const RETRY_FIRST_MS = 1_000;
/** …up to this (so a platform that comes back is connected within about 25 s of it). */
export const RETRY_MAX_MS = 20_000;
/** Each wait is drawn from ±this share around its value, so instances that lost the same network do not retry in step. */
export const RETRY_JITTER = 0.2;

/** How long to wait before retry number `attempt` (1 = the first retry). */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (1 - RETRY_JITTER + 2 * RETRY_JITTER * random()));
}

export interface StarterDeps {
  log: Logger;
  /** The core as this adapter should see it (counted). */
  coreFor(adapter: PlatformAdapter): PlatformCore;
  /** The adapter serves: stopped with the daemon from now on, and announced. */
  started(adapter: PlatformAdapter, info: StartInfo): void;
  /** The first start could not reach the platform; it is retried in the background. */
  degraded?(adapter: PlatformAdapter, problem: string): void;
  random?: () => number;
}

export class PlatformStarter {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly attempts = new Set<Promise<void>>();
  private stopping = false;

  constructor(private readonly deps: StarterDeps) {}

  /**
   * Starts one platform: resolves once it serves or is retried in the background; rejects when
   * the platform refused it (the caller stops the whole start).
   */
  async start(adapter: PlatformAdapter, health: PlatformHealth): Promise<void> {
    try {
      this.connected(adapter, health, await adapter.start(this.deps.coreFor(adapter)));
    } catch (error) {
      if (startFailureOf(error) === "refused") {
        Object.assign(health, { state: "failed", connected: false, detail: userMessageOf(error) });
        throw error;
      }
      const problem = userMessageOf(error);
      this.deps.log.warn({ platform: adapter.name, err: error }, "platform could not be reached at start; the others serve, and Baton keeps trying it");
      this.deps.degraded?.(adapter, problem);
      await this.quietStop(adapter);
      this.retryLater(adapter, health, 1, problem);
    }
  }

  /** No more retries; waits for an attempt under way (the caller then stops what started). */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.attempts]);
  }

  private retryLater(adapter: PlatformAdapter, health: PlatformHealth, attempt: number, problem: string): void {
    if (this.stopping) return;
    const waitMs = retryDelayMs(attempt, this.deps.random);
    Object.assign(health, { state: "degraded", connected: false, detail: problem, attempts: attempt, nextAttemptAt: new Date(Date.now() + waitMs).toISOString() });
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      const run = this.retry(adapter, health, attempt).finally(() => this.attempts.delete(run));
      this.attempts.add(run);
    }, waitMs);
    this.timers.add(timer);
  }

  private async retry(adapter: PlatformAdapter, health: PlatformHealth, attempt: number): Promise<void> {
    if (this.stopping) return;
    try {
      const info = await adapter.start(this.deps.coreFor(adapter));
      if (this.stopping) return void (await this.quietStop(adapter));
      this.deps.log.info({ platform: adapter.name, attempts: attempt + 1 }, "platform reached; it serves now");
      this.connected(adapter, health, info);
    } catch (error) {
      await this.quietStop(adapter);
      if (startFailureOf(error) === "refused") {
        // Reached, and refused (a token revoked meanwhile): retrying cannot fix that.
        Object.assign(health, { state: "failed", connected: false, detail: userMessageOf(error), attempts: undefined, nextAttemptAt: undefined });
        this.deps.log.error({ platform: adapter.name, err: error }, "platform refused Baton; not retrying (fix the config and restart)");
        return;
      }
      this.deps.log.debug({ platform: adapter.name, attempt, err: error }, "platform still cannot be reached");
      this.retryLater(adapter, health, attempt + 1, userMessageOf(error));
    }
  }

  private connected(adapter: PlatformAdapter, health: PlatformHealth, info: StartInfo): void {
    Object.assign(health, { state: "connected", connected: true, detail: undefined, attempts: undefined, nextAttemptAt: undefined });
    this.deps.started(adapter, info);
  }

  /** What a failed start opened is closed before the next try. */
  private async quietStop(adapter: PlatformAdapter): Promise<void> {
    await adapter.stop().catch((error: unknown) => this.deps.log.debug({ platform: adapter.name, err: error }, "stopping a platform after a failed start"));
  }
}

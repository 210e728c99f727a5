// Spaces out one platform instance's calls so they stay under its limits, and holds calls back
// after a 429 for as long as the platform asked. Limits come from the adapter's capabilities
// (Telegram: a second between calls in one chat, 20 a minute in a group, 30 a second in all);
// a platform whose SDK paces itself (discord.js) declares none and only 429 holds apply.
// The platform-wide rate is a window (at most N calls in any second), not an even spacing: a
// first answer should not wait 33 ms for a slot while the bot is far under its rate. When a
// window frees many calls at once, the scheduler still starts them one per event-loop task.
import type { PacingLimits, PlatformAdapter } from "../../platforms/contract.js";

const ONE_MINUTE_MS = 60_000;
const ONE_SECOND_MS = 1_000;
/** Past this many remembered keys, keys idle for a minute are forgotten. */
const KEY_SWEEP_THRESHOLD = 1_000;

interface KeyState {
  /** When the last call of this key ended (the gap runs from there: network delays never shrink it). */
  lastEndedAt: number;
  /** Start times of this key's calls in the last minute. */
  recent: number[];
  heldUntil: number;
}

export class Pacer {
  private readonly keys = new Map<string, KeyState>();
  /** Start times of the platform's calls in the last second. */
  private readonly recentCalls: number[] = [];
  private platformHeldUntil = 0;
  private readonly limits: PacingLimits;

  constructor(private readonly adapter: PlatformAdapter) {
    this.limits = adapter.capabilities.pacing ?? {};
  }

  /** How long a call on this route must wait for its own key's limits and holds (0: now). */
  keyDelayMs(route: string, now = Date.now()): number {
    const { key, perMinuteLimited } = this.keyOf(route);
    const state = this.keys.get(key);
    if (!state) return 0;
    let wait = Math.max(state.heldUntil - now, state.lastEndedAt + (this.limits.keyGapMs ?? 0) - now);
    prune(state.recent, now - ONE_MINUTE_MS);
    const perMinute = this.limits.keyCallsPerMinute;
    if (perMinuteLimited && perMinute && state.recent.length >= perMinute) wait = Math.max(wait, state.recent[0] + ONE_MINUTE_MS - now);
    return Math.max(0, wait);
  }

  /** How long any call must wait for the platform-wide rate and holds (0: now). */
  platformDelayMs(now = Date.now()): number {
    let wait = this.platformHeldUntil - now;
    const perSecond = this.limits.callsPerSecond;
    if (perSecond) {
      prune(this.recentCalls, now - ONE_SECOND_MS);
      if (this.recentCalls.length >= perSecond) wait = Math.max(wait, this.recentCalls[0] + ONE_SECOND_MS - now);
    }
    return Math.max(0, wait);
  }

  /** A call on this route starts now; returns the function to call when it has ended. */
  begin(route: string): () => void {
    const now = Date.now();
    const state = this.stateOf(this.keyOf(route).key);
    state.recent.push(now);
    if (this.limits.callsPerSecond) this.recentCalls.push(now);
    return () => {
      state.lastEndedAt = Date.now();
    };
  }

  /** The platform answered 429: hold back the route's key, or everything, for `ms`. */
  hold(route: string, scope: "key" | "platform", ms: number): void {
    const until = Date.now() + ms;
    if (scope === "platform") this.platformHeldUntil = Math.max(this.platformHeldUntil, until);
    else {
      const state = this.stateOf(this.keyOf(route).key);
      state.heldUntil = Math.max(state.heldUntil, until);
    }
  }

  private keyOf(route: string): { key: string; perMinuteLimited: boolean } {
    return this.adapter.paceKey?.(route) ?? { key: route, perMinuteLimited: false };
  }

  private stateOf(key: string): KeyState {
    let state = this.keys.get(key);
    if (!state) {
      if (this.keys.size >= KEY_SWEEP_THRESHOLD) this.forgetIdleKeys();
      state = { lastEndedAt: -Infinity, recent: [], heldUntil: 0 };
      this.keys.set(key, state);
    }
    return state;
  }

  private forgetIdleKeys(): void {
    const before = Date.now() - ONE_MINUTE_MS;
    for (const [key, state] of this.keys) if (state.lastEndedAt < before && state.heldUntil < Date.now()) this.keys.delete(key);
  }
}

function prune(times: number[], before: number): void {
  let drop = 0;
  while (drop < times.length && times[drop] <= before) drop++;
  if (drop > 0) times.splice(0, drop);
}

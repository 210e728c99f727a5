// Spaces out one platform instance's calls so they stay under its limits, and holds calls back
// after a 429 for as long as the platform asked. Limits come from the adapter's capabilities
// (Telegram: a second between calls in one chat, 20 a minute in a group, 30 a second in all);
// a platform whose SDK paces itself (discord.js) declares none and only 429 holds apply.
// The platform-wide rate is kept as an even spacing (30 a second: one call every 33 ms), not as
// a window of 30 calls a second: a window freed at once sends its calls in one burst, and the
// burst frees its window at once again a second later (Baton then renders and sends thirty
// messages back to back while nothing else it has to do, a new message included, gets a turn).
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
  private platformHeldUntil = 0;
  private lastPlatformCallAt = -Infinity;
  private readonly limits: PacingLimits;
  private readonly platformGapMs: number;

  constructor(private readonly adapter: PlatformAdapter) {
    this.limits = adapter.capabilities.pacing ?? {};
    this.platformGapMs = this.limits.callsPerSecond ? ONE_SECOND_MS / this.limits.callsPerSecond : 0;
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

  /** How long any call must wait for the platform-wide spacing and holds (0: now). */
  platformDelayMs(now = Date.now()): number {
    return Math.max(0, this.platformHeldUntil - now, this.lastPlatformCallAt + this.platformGapMs - now);
  }

  /** A call on this route starts now; returns the function to call when it has ended. */
  begin(route: string): () => void {
    const now = Date.now();
    const state = this.stateOf(this.keyOf(route).key);
    state.recent.push(now);
    this.lastPlatformCallAt = now;
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

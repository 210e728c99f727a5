// Keeps one platform instance's calls under its limits, and holds calls back after a 429 for as
// long as the platform asked. The limits come from the adapter's capabilities (see PacingLimits):
// a token bucket per pace key (a chat, a channel) so a short answer's send and final edit both go
// at once and a long stream settles at the sustained rate; sliding windows where a platform counts
// "N in any period" (a Telegram group, a Discord channel) or for the whole instance. A platform
// that declares none gets only the 429 holds.
// When a window frees many calls at once, the scheduler still starts them one per event-loop task.
import type { CallKind, PacingLimits, PlatformAdapter } from "../../platforms/contract.js";
import { SlidingWindow, TokenBucket } from "./rates.js";

/** Past this many remembered keys, keys back at rest are forgotten. */
const KEY_SWEEP_THRESHOLD = 1_000;

interface KeyState {
  bucket?: TokenBucket;
  /** Only for keys the adapter marks as windowed. */
  window?: SlidingWindow;
  heldUntil: number;
}

export class Pacer {
  private readonly keys = new Map<string, KeyState>();
  private readonly platform?: SlidingWindow;
  private readonly platformEdits?: SlidingWindow;
  private platformHeldUntil = 0;
  private readonly limits: PacingLimits;

  constructor(private readonly adapter: PlatformAdapter) {
    this.limits = adapter.capabilities.pacing ?? {};
    if (this.limits.platform) this.platform = new SlidingWindow(this.limits.platform);
    if (this.limits.platformEdits) this.platformEdits = new SlidingWindow(this.limits.platformEdits);
  }

  /** How long a call of this kind on this route must wait for its own key's limits and holds (0: now). */
  keyDelayMs(route: string, kind: CallKind, now = Date.now()): number {
    let wait = kind === "edit" && this.platformEdits ? this.platformEdits.delayMs(now) : 0;
    const state = this.keys.get(this.keyOf(route).key);
    if (!state) return wait;
    wait = Math.max(wait, state.heldUntil - now);
    if (state.bucket && this.keyCounts(kind)) wait = Math.max(wait, state.bucket.delayMs(now));
    if (state.window) wait = Math.max(wait, state.window.delayMs(now));
    return Math.max(0, wait);
  }

  /** Whether the route's key could take `calls` sends now, one after another, without waiting. */
  hasRoomFor(route: string, calls: number, now = Date.now()): boolean {
    const state = this.keys.get(this.keyOf(route).key);
    if (!state) return (this.limits.key?.burst ?? calls) >= calls && (!this.keyOf(route).windowed || (this.limits.keyWindow?.calls ?? calls) >= calls);
    return state.heldUntil <= now && (state.bucket?.delayMs(now, calls) ?? 0) === 0 && (state.window?.delayMs(now, calls) ?? 0) === 0;
  }

  /** How long any call must wait for the platform-wide rate and holds (0: now). */
  platformDelayMs(now = Date.now()): number {
    return Math.max(0, this.platformHeldUntil - now, this.platform?.delayMs(now) ?? 0);
  }

  /**
   * A call of this kind on this route starts now: it takes its place in every limit that counts
   * it. Returns the function to call when it has ended: from then on it counts as made then.
   */
  begin(route: string, kind: CallKind): () => void {
    const start = Date.now();
    const state = this.stateOf(route);
    const counted = [this.keyCounts(kind) ? state.bucket : undefined, state.window, this.platform, kind === "edit" ? this.platformEdits : undefined];
    for (const limit of counted) limit?.take(start);
    return () => {
      const end = Date.now();
      for (const limit of counted) limit?.ended(start, end);
    };
  }

  /** The platform answered 429: hold back the route's key, or everything, for `ms`. */
  hold(route: string, scope: "key" | "platform", ms: number): void {
    const until = Date.now() + ms;
    if (scope === "platform") this.platformHeldUntil = Math.max(this.platformHeldUntil, until);
    else {
      const state = this.stateOf(route);
      state.heldUntil = Math.max(state.heldUntil, until);
    }
  }

  /** Whether the key's bucket counts this kind of call (Slack's per-channel limit counts posts only). */
  private keyCounts(kind: CallKind): boolean {
    return kind === "send" || this.limits.keyCounts !== "sends";
  }

  private keyOf(route: string): { key: string; windowed: boolean } {
    return this.adapter.paceKey?.(route) ?? { key: route, windowed: false };
  }

  private stateOf(route: string): KeyState {
    const { key, windowed } = this.keyOf(route);
    let state = this.keys.get(key);
    if (!state) {
      if (this.keys.size >= KEY_SWEEP_THRESHOLD) this.forgetRestingKeys();
      state = {
        bucket: this.limits.key && new TokenBucket(this.limits.key),
        window: windowed && this.limits.keyWindow ? new SlidingWindow(this.limits.keyWindow) : undefined,
        heldUntil: 0,
      };
      this.keys.set(key, state);
    }
    return state;
  }

  /** A key whose limits are all back at rest behaves as a new one: it can go. */
  private forgetRestingKeys(): void {
    const now = Date.now();
    for (const [key, state] of this.keys) {
      if (state.heldUntil < now && (state.bucket?.isFull(now) ?? true) && (state.window?.isEmpty(now) ?? true)) this.keys.delete(key);
    }
  }
}

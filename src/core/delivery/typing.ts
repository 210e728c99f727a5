// "typing…" on a route while at least one turn runs there: one call every `typingIntervalMs` (the
// platform's indicator fades after about that long) under one timer per route, however many turns
// hold it. A call is skipped while the last one still shows: a chat that asks again a moment after
// its previous turn ended sees the indicator already, and every call counts against the platform's
// rate limits (Telegram: 30 calls a second for the whole bot). Not paced or retried: a late
// "typing…" is worth nothing. A message sent on the route clears the indicator on the platforms
// that have one (Telegram, Discord), so the next hold shows it again at once.
import type { PlatformAdapter } from "../../platforms/contract.js";

/** Past this many remembered routes, routes whose indicator has faded are forgotten. */
const ROUTE_SWEEP_THRESHOLD = 1_000;

interface RouteTyping {
  holders: number;
  timer?: NodeJS.Timeout;
  /** When the last call was made (-Infinity: never). */
  shownAt: number;
  /** When a message was last sent there (the platform hid the indicator then). */
  clearedAt: number;
}

export class TypingIndicators {
  private readonly routes = new Map<string, RouteTyping>();

  constructor(private readonly adapter: PlatformAdapter) {}

  /** Shows "typing…" on the route until the returned release is called; a second release does nothing. */
  hold(route: string): () => void {
    const intervalMs = this.adapter.capabilities.typingIntervalMs;
    if (!intervalMs || !this.adapter.typing) return () => undefined;
    const state = this.stateOf(route);
    if (state.holders++ === 0) {
      const showingFor = this.isShowing(state, intervalMs) ? state.shownAt + intervalMs - Date.now() : 0;
      if (showingFor > 0) this.beatAfter(route, state, intervalMs, showingFor);
      else this.beat(route, state, intervalMs);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--state.holders > 0) return;
      clearTimeout(state.timer);
      state.timer = undefined;
    };
  }

  /** A message went out on the route. */
  messageSent(route: string): void {
    const state = this.routes.get(route);
    if (state) state.clearedAt = Date.now();
  }

  private beat(route: string, state: RouteTyping, intervalMs: number): void {
    state.shownAt = Date.now();
    void this.adapter.typing!(route).catch(() => undefined);
    this.beatAfter(route, state, intervalMs, intervalMs);
  }

  private beatAfter(route: string, state: RouteTyping, intervalMs: number, delayMs: number): void {
    state.timer = setTimeout(() => this.beat(route, state, intervalMs), delayMs);
    state.timer.unref();
  }

  private isShowing(state: RouteTyping, intervalMs: number): boolean {
    return state.shownAt > state.clearedAt && Date.now() - state.shownAt < intervalMs;
  }

  private stateOf(route: string): RouteTyping {
    let state = this.routes.get(route);
    if (!state) {
      if (this.routes.size >= ROUTE_SWEEP_THRESHOLD) this.forgetFaded();
      state = { holders: 0, shownAt: -Infinity, clearedAt: -Infinity };
      this.routes.set(route, state);
    }
    return state;
  }

  private forgetFaded(): void {
    const intervalMs = this.adapter.capabilities.typingIntervalMs ?? 0;
    for (const [route, state] of this.routes) if (state.holders === 0 && !this.isShowing(state, intervalMs)) this.routes.delete(route);
  }
}

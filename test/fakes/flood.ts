// Rate limits as a platform enforces them, for the wire fakes: each call that posts or changes a
// message is checked against every rule that covers it, and a call past one is refused (the fake
// answers 429 with how long to wait) and noted. Written apart from the core's pacer on purpose
// (GCRA and arrival logs here, token counts there), so a test catches a pacer that is too eager
// rather than agreeing with it.

/** "About `perSecond` a second, `burst` at once": a token bucket, checked as GCRA. */
export interface BurstRule {
  burst: number;
  perSecond: number;
}

/** "At most `calls` in any `windowMs`." */
export interface WindowRule {
  calls: number;
  windowMs: number;
}

export type FloodRule = ({ kind: "burst" } & BurstRule) | ({ kind: "window" } & WindowRule);

/** A call the fake refused for its rate: which rule, for which key, and how long it asked to wait. */
export interface FloodRefusal {
  rule: string;
  key: string;
  at: number;
  retryAfterMs: number;
}

/**
 * A call may arrive this much earlier than its limit allows and still pass: the client times a call
 * when it starts, the fake when the request arrives, and two requests can reach it closer together
 * than they left. Far below any limit's period, so an eager pacer is still caught.
 */
const ARRIVAL_SLACK_MS = 40;

interface KeyState {
  /** GCRA's theoretical arrival time (burst rules). */
  tat: number;
  /** Arrival times (window rules). */
  times: number[];
}

export class FloodGate {
  readonly refusals: FloodRefusal[] = [];
  private readonly state = new Map<string, KeyState>();

  /**
   * Checks a call against `checks` (rule name → its rule and the key it counts under) at `now`.
   * Every rule passes: the call is counted under each and undefined is returned. Otherwise nothing
   * is counted and the wait the first refusing rule asks for (ms) is returned.
   */
  admit(checks: Array<{ name: string; rule: FloodRule; key: string }>, now: number): number | undefined {
    for (const { name, rule, key } of checks) {
      const wait = this.waitMs(rule, this.stateOf(`${name}\u0000${key}`), now);
      if (wait > 0) {
        this.refusals.push({ rule: name, key, at: now, retryAfterMs: wait });
        return wait;
      }
    }
    for (const { name, rule, key } of checks) {
      const state = this.stateOf(`${name}\u0000${key}`);
      if (rule.kind === "burst") state.tat = Math.max(state.tat, now) + 1000 / rule.perSecond;
      else state.times.push(now);
    }
    return undefined;
  }

  private waitMs(rule: FloodRule, state: KeyState, now: number): number {
    if (rule.kind === "burst") {
      const interval = 1000 / rule.perSecond;
      // GCRA: conforming while the theoretical arrival time is at most (burst - 1) intervals ahead.
      const ahead = state.tat - now - (rule.burst - 1) * interval;
      return ahead > ARRIVAL_SLACK_MS ? ahead : 0;
    }
    const since = now - rule.windowMs + ARRIVAL_SLACK_MS;
    while (state.times.length > 0 && state.times[0] <= now - rule.windowMs) state.times.shift();
    const inWindow = state.times.filter((t) => t > since);
    return inWindow.length < rule.calls ? 0 : inWindow[inWindow.length - rule.calls] + rule.windowMs - ARRIVAL_SLACK_MS - now;
  }

  private stateOf(id: string): KeyState {
    let state = this.state.get(id);
    if (!state) this.state.set(id, (state = { tat: -Infinity, times: [] }));
    return state;
  }
}

// What the core and the platform wiring count, as a small interface: the ops module implements it
// (and alone knows prom-client); everything else calls these methods and never imports a metrics
// library. The default does nothing, so tests and tools need no metrics at all.

export type TurnOutcome = "end_turn" | "cancelled" | "max_tokens" | "max_turn_requests" | "refusal" | "error";

export interface Metrics {
  /** A message from a chat reached the core (before access checks). */
  messageIn(platform: string): void;
  /** The core sent or edited one platform message. */
  messageOut(platform: string, op: "send" | "edit"): void;
  /** A platform call failed; `reason` is short and bounded (refused, network, other). */
  platformError(platform: string, reason: string): void;
  /** A turn ended after `seconds`, with how it ended. */
  turnFinished(agent: string, outcome: TurnOutcome, seconds: number): void;
  /** A `/pickup` attempt: a code was claimed, or it was refused (invalid, rate limited, failed). */
  pickup(outcome: "claimed" | "refused"): void;
  /** What a turn used, as its agent reported it: tokens, and the cost added since the session's last report. */
  agentUsage(agent: string, usage: { inputTokens?: number; outputTokens?: number; cost?: { amount: number; currency: string } }): void;
}

export const NO_METRICS: Metrics = {
  messageIn: () => undefined,
  messageOut: () => undefined,
  platformError: () => undefined,
  turnFinished: () => undefined,
  pickup: () => undefined,
  agentUsage: () => undefined,
};

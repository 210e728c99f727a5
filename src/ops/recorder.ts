// The Metrics the core and the platform wiring call. Counts live here as plain numbers (what
// `baton status` shows); prom-client is loaded only when /metrics is first scraped, and then gets
// every count so far and each later one, so a daemon nobody scrapes never pays for it.
import type { Metrics, TurnOutcome } from "../kernel/metrics.js";

export type CounterName = "messages_in" | "messages_out" | "platform_errors" | "turns" | "pickups" | "agent_tokens" | "agent_cost";
export type Labels = Record<string, string>;

/** Where counts go once prom-client is loaded. */
export interface MetricsSink {
  inc(counter: CounterName, labels: Labels, by: number): void;
  observeTurn(labels: Labels, seconds: number): void;
}

/** Turn durations kept for a sink that is not there yet; past this, the oldest are dropped. */
const MAX_BUFFERED_TURNS = 10_000;

export class MetricsRecorder implements Metrics {
  private readonly counts = new Map<string, { counter: CounterName; labels: Labels; value: number }>();
  private buffered: Array<{ labels: Labels; seconds: number }> = [];
  private sink?: MetricsSink;

  messageIn(platform: string): void {
    this.inc("messages_in", { platform });
  }

  messageOut(platform: string, op: "send" | "edit"): void {
    this.inc("messages_out", { platform, op });
  }

  platformError(platform: string, reason: string): void {
    this.inc("platform_errors", { platform, reason });
  }

  turnFinished(agent: string, outcome: TurnOutcome, seconds: number): void {
    this.inc("turns", { agent, outcome });
    if (this.sink) this.sink.observeTurn({ agent }, seconds);
    else {
      this.buffered.push({ labels: { agent }, seconds });
      if (this.buffered.length > MAX_BUFFERED_TURNS) this.buffered = this.buffered.slice(-MAX_BUFFERED_TURNS);
    }
  }

  pickup(outcome: "claimed" | "refused"): void {
    this.inc("pickups", { outcome });
  }

  agentUsage(agent: string, usage: { inputTokens?: number; outputTokens?: number; cost?: { amount: number; currency: string } }): void {
    if (usage.inputTokens) this.inc("agent_tokens", { agent, direction: "input" }, usage.inputTokens);
    if (usage.outputTokens) this.inc("agent_tokens", { agent, direction: "output" }, usage.outputTokens);
    if (usage.cost && usage.cost.amount > 0) this.inc("agent_cost", { agent, currency: usage.cost.currency }, usage.cost.amount);
  }

  /** Sum of a counter over the label sets that match `where`. */
  total(counter: CounterName, where: Labels = {}): number {
    let sum = 0;
    for (const c of this.counts.values()) {
      if (c.counter === counter && Object.entries(where).every(([k, v]) => c.labels[k] === v)) sum += c.value;
    }
    return sum;
  }

  /** Hands every count so far to the sink, then forwards each new one. */
  attach(sink: MetricsSink): void {
    for (const c of this.counts.values()) sink.inc(c.counter, c.labels, c.value);
    for (const b of this.buffered) sink.observeTurn(b.labels, b.seconds);
    this.buffered = [];
    this.sink = sink;
  }

  private inc(counter: CounterName, labels: Labels, by = 1): void {
    const key = `${counter}\u0000${Object.values(labels).join("\u0000")}`;
    const entry = this.counts.get(key);
    if (entry) entry.value += by;
    else this.counts.set(key, { counter, labels, value: by });
    this.sink?.inc(counter, labels, by);
  }
}

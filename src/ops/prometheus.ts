// /metrics in the Prometheus text format, on prom-client. Loaded on the first scrape (see
// recorder.ts); the gauges read the daemon's state at each scrape, and prom-client's default
// metrics add event-loop lag, RSS, heap and GC.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { CounterName, Labels, MetricsRecorder } from "./recorder.js";
import { PLATFORM_STATES, type DaemonSnapshot } from "./snapshot.js";

/** Turn durations span a one-line answer to a long agentic task. */
const TURN_SECONDS_BUCKETS = [0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

export interface PrometheusExport {
  contentType: string;
  render(): Promise<string>;
}

export function createPrometheusExport(recorder: MetricsRecorder, snapshot: () => DaemonSnapshot): PrometheusExport {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const counters = eventCounters(registers);
  const turnSeconds = new Histogram({ name: "baton_turn_duration_seconds", help: "How long agent turns ran", labelNames: ["agent"], buckets: TURN_SECONDS_BUCKETS, registers });

  // One snapshot per scrape, shared by every gauge (they are collected in one pass).
  let current: DaemonSnapshot | undefined;
  stateGauges(registers, () => (current ??= snapshot()));

  recorder.attach({
    inc: (counter: CounterName, labels: Labels, by: number) => counters[counter].inc(labels, by),
    observeTurn: (labels: Labels, seconds: number) => turnSeconds.observe(labels, seconds),
  });
  return {
    contentType: registry.contentType,
    async render() {
      current = undefined;
      try {
        return await registry.metrics();
      } finally {
        current = undefined;
      }
    },
  };
}

/** What the recorder counts as it happens: messages, platform errors, turns, pickups, tokens and cost. */
function eventCounters(registers: Registry[]): Record<CounterName, Counter> {
  return {
    messages_in: new Counter({ name: "baton_messages_in_total", help: "Chat messages that reached Baton, by platform instance", labelNames: ["platform"], registers }),
    messages_out: new Counter({ name: "baton_messages_out_total", help: "Platform messages sent or edited, by platform instance and operation", labelNames: ["platform", "op"], registers }),
    platform_errors: new Counter({
      name: "baton_platform_errors_total",
      help: "Failed platform calls, by platform instance and reason (refused, network, other)",
      labelNames: ["platform", "reason"],
      registers,
    }),
    turns: new Counter({ name: "baton_turns_total", help: "Agent turns that ended, by agent and outcome", labelNames: ["agent", "outcome"], registers }),
    pickups: new Counter({ name: "baton_pickups_total", help: "/pickup attempts: claimed or refused", labelNames: ["outcome"], registers }),
    agent_tokens: new Counter({ name: "baton_agent_tokens_total", help: "Tokens agents reported using, by agent and direction (input, output)", labelNames: ["agent", "direction"], registers }),
    agent_cost: new Counter({ name: "baton_agent_cost_total", help: "Cost agents reported, by agent and currency", labelNames: ["agent", "currency"], registers }),
  };
}

/** What the daemon is at each scrape, read from the snapshot `read` gives (one per scrape). */
function stateGauges(registers: Registry[], read: () => DaemonSnapshot): void {
  const gauge = (name: string, help: string, value: (s: DaemonSnapshot) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(value(read()));
      },
    });
  gauge("baton_agent_hosts_live", "Agent processes running now", (s) => s.liveHosts);
  gauge("baton_agent_spare", "A spare agent process started ahead for the next new thread (1) or none (0); it counts against max_live_hosts", (s) => (s.spareHost ? 1 : 0));
  gauge("baton_turns_running", "Turns running now", (s) => s.turnsRunning);
  gauge("baton_prompts_queued", "Prompts waiting behind a running turn (or for a restart to finish)", (s) => s.queuedPrompts);
  gauge("baton_approvals_pending", "Permission requests waiting for an answer in a chat", (s) => s.pendingApprovals);
  gauge("baton_threads_open", "Open threads", (s) => s.openThreads);
  gauge("baton_draining", "1 while Baton shuts down and lets running turns finish", (s) => (s.state === "draining" ? 1 : 0));
  gauge("baton_leader", "1 while this instance leads (serves the platforms); 0 while it stands by (store.url)", (s) => (s.state === "standby" || s.cluster?.role === "standby" ? 0 : 1));
  new Counter({
    name: "baton_takeovers_total",
    help: "Times this instance has taken the lead (store.url); 1 after a first start as leader",
    registers,
    collect() {
      // The count lives in the cluster state (it outlives an ops listener); set, not added to.
      this.reset();
      this.inc(read().cluster?.takeovers ?? 0);
    },
  });
  new Gauge({
    name: "baton_platform_connected",
    help: "1 when the platform instance is connected",
    labelNames: ["platform", "kind"],
    registers,
    collect() {
      this.reset();
      for (const p of read().platforms) this.set({ platform: p.name, kind: p.kind }, p.connected ? 1 : 0);
    },
  });
  // One series per state, 1 for the one the platform is in (alert on state="degraded" or "failed").
  new Gauge({
    name: "baton_platform_state",
    help: "1 for the state each platform instance is in: starting, connected, degraded (cannot reach it; retried), failed (refused; not retried)",
    labelNames: ["platform", "kind", "state"],
    registers,
    collect() {
      this.reset();
      for (const p of read().platforms) for (const state of PLATFORM_STATES) this.set({ platform: p.name, kind: p.kind, state }, p.state === state ? 1 : 0);
    },
  });
}

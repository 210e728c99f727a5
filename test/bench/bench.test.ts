// The bench's own test: every suite runs end to end at a toy scale against the real CLI (dist/),
// the real demo agent and the platform fakes. A renamed log line, a fake that stops answering or a
// probe that stops reporting makes a suite throw here, instead of printing a figure of zero.
// Timings are not judged: only that every figure was measured.
import { describe, expect, it } from "vitest";
import { benchSuites } from "../../bench/suites.js";
import type { Figure } from "../../bench/lib/figure.js";

const EXPECTED: Record<string, string[]> = {
  "startup and memory at rest": [
    "cold-start",
    "cold-start-cpu",
    "ready-line",
    "first-message",
    "idle-rss",
    "rss-per-thread",
    "rss-per-host",
    "agent-rss",
    "cold-start-discord",
    "cold-start-discord-cpu",
    "cold-start-matrix",
    "cold-start-matrix-cpu",
  ],
  "inbound and round trip": ["inbound", "inbound-agent-read", "inbound-to-agent", "inbound-baton-cpu", "inbound-loop-wait", "inbound-machine-cpu", "inbound-steal", "inbound-idle", "overhead"],
  "busy machine": ["busy-inbound", "busy-inbound-idle", "busy-inbound-nice0", "busy-to-agent", "busy-to-agent-idle", "busy-to-agent-nice0"],
  "agents' own work on a busy machine": [
    "priority-job-alone",
    ...["shared", "own"].flatMap((layout) => ["nice0", "nice10", "idle"].flatMap((s) => [`priority-job-${layout}-${s}`, `priority-build-${layout}-${s}`])),
  ],
  streaming: ["loop-delay", "stream-lost", "stream-pacing", "stream-wall", "stream-cpu", "stream-rss"],
  "short answers and pacing": [
    ...["telegram", "slack", "discord"].flatMap((p) => [`whole-${p}`, `first-${p}`, `back-to-back-${p}`, `rate-refusals-${p}`]),
    "whole-brisk-telegram",
    "back-to-back-no-hold",
    "whole-brisk-no-hold",
  ],
  "one huge turn": ["huge-turn-rss", "huge-turn-cpu"],
  "web chat huge turn": ["web-turn-rss-256k-slow", "web-turn-tail-256k-slow"],
  "matrix huge turn": ["matrix-turn-rss-256k", "matrix-turn-tail-256k"],
  "handoff list": ["handoff-list", "handoff-list-node"],
  "registry replay": ["replay"],
  "takeover on postgresql": ["append-jsonl", "append-postgres", "takeover", "takeover-ready", "takeover-replay"],
};
/** Figures that are counts of faults: at any scale they must be zero. */
const MUST_BE_ZERO = ["stream-lost", "stream-pacing", "rate-refusals-telegram", "rate-refusals-slack", "rate-refusals-discord"];
/** Figures that can honestly be zero or below at a toy scale (a difference of two noisy RSS readings; no steal; no wait for a core). */
const MAY_BE_SMALL = [
  ...MUST_BE_ZERO,
  "rss-per-thread",
  "rss-per-host",
  "inbound-steal",
  "inbound-loop-wait",
  "web-turn-rss-256k-slow",
  "web-turn-tail-256k-slow",
  "matrix-turn-rss-256k",
  "matrix-turn-tail-256k",
];

describe("npm run bench, at a toy scale", () => {
  it("names every suite it is expected to run", () => {
    expect(
      benchSuites("tiny")
        .map((s) => s.name)
        .sort(),
    ).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const suite of benchSuites("tiny")) {
    it(`${suite.name}: measures every figure`, async () => {
      const figures = (await suite.run()).filter((f): f is Figure => typeof f !== "string");
      expect(figures.map((f) => f.id).sort()).toEqual([...EXPECTED[suite.name]].sort());
      for (const f of figures) {
        expect(f.n, f.id).toBeGreaterThan(0);
        expect(Number.isFinite(f.median) && Number.isFinite(f.tail), f.id).toBe(true);
        expect(f.definition.length, f.id).toBeGreaterThan(20);
        if (!MAY_BE_SMALL.includes(f.id)) expect(f.median, f.id).toBeGreaterThan(0);
        if (MUST_BE_ZERO.includes(f.id)) expect(f.median, f.id).toBe(0);
      }
    }, 300_000);
  }
});

// The bench's suites at full scale and at the toy scale its own test runs.
import type { Figure } from "./lib/figure.js";
import { benchBusy, BUSY_FULL, BUSY_TINY } from "./busy.js";
import { benchHandoffList, HANDOFF_FULL, HANDOFF_TINY } from "./handoff.js";
import { benchInbound, INBOUND_FULL, INBOUND_TINY } from "./inbound.js";
import { benchReplay, REPLAY_FULL, REPLAY_TINY } from "./replay.js";
import { benchStartup, STARTUP_FULL, STARTUP_TINY } from "./startup.js";
import { benchHugeTurn, benchStreaming, STREAMING_FULL, STREAMING_TINY } from "./streaming.js";
import { benchMachines } from "./machines.js";
import { benchPriority, PRIORITY_FULL, PRIORITY_TINY } from "./priority.js";
import { benchPacing, PACING_FULL, PACING_TINY } from "./pacing.js";
import { benchWebTurn, WEB_TURN_FULL, WEB_TURN_TINY } from "./web-turn.js";
import { benchMatrixTurn, MATRIX_TURN_FULL, MATRIX_TURN_TINY } from "./matrix-turn.js";
import { benchSubagents } from "./subagents.js";
import { benchTakeover, TAKEOVER_FULL, TAKEOVER_TINY } from "./takeover.js";
import { benchRealAgents, REAL_AGENTS_FULL } from "./real-agents.js";
import type { BenchResult } from "./types.js";

export type Scale = "full" | "tiny";

export interface Suite {
  /** What `npm run bench -- --suite <id>` names it by. */
  id: string;
  name: string;
  /** Figures, and lines of text for what cannot be measured yet. */
  run(): Promise<Array<Figure | string>>;
}

export function benchSuites(scale: Scale): Suite[] {
  const tiny = scale === "tiny";
  return [
    { id: "startup", name: "startup and memory at rest", run: () => benchStartup(tiny ? STARTUP_TINY : STARTUP_FULL) },
    { id: "inbound", name: "inbound and round trip", run: () => benchInbound(tiny ? INBOUND_TINY : INBOUND_FULL) },
    { id: "busy", name: "busy machine", run: () => benchBusy(tiny ? BUSY_TINY : BUSY_FULL) },
    { id: "priority", name: "agents' own work on a busy machine", run: () => benchPriority(tiny ? PRIORITY_TINY : PRIORITY_FULL) },
    { id: "streaming", name: "streaming", run: () => benchStreaming(tiny ? STREAMING_TINY : STREAMING_FULL) },
    { id: "pacing", name: "short answers and pacing", run: () => benchPacing(tiny ? PACING_TINY : PACING_FULL) },
    { id: "huge-turn", name: "one huge turn", run: () => benchHugeTurn(tiny ? STREAMING_TINY : STREAMING_FULL) },
    { id: "web-turn", name: "web chat huge turn", run: () => benchWebTurn(tiny ? WEB_TURN_TINY : WEB_TURN_FULL) },
    { id: "matrix-turn", name: "matrix huge turn", run: () => benchMatrixTurn(tiny ? MATRIX_TURN_TINY : MATRIX_TURN_FULL) },
    { id: "handoff", name: "handoff list", run: () => benchHandoffList(tiny ? HANDOFF_TINY : HANDOFF_FULL) },
    { id: "replay", name: "registry replay", run: () => benchReplay(tiny ? REPLAY_TINY : REPLAY_FULL) },
    { id: "takeover", name: "takeover on postgresql", run: () => benchTakeover(tiny ? TAKEOVER_TINY : TAKEOVER_FULL) },
    // The SSH machines' suite reports medians of its own (a real sshd on loopback); full scale only.
    ...(tiny ? [] : [{ id: "machines", name: "machines over ssh", run: async () => (await benchMachines()).map(fromResult) }]),
    ...(tiny ? [] : [{ id: "subagents", name: "subagents", run: async () => (await benchSubagents()).map(fromResult) }]),
    // Real agent CLIs (installed by `npm run test:agents`, skipped without them); full scale only.
    ...(tiny ? [] : [{ id: "real-agents", name: "real-agents", run: () => benchRealAgents(REAL_AGENTS_FULL) }]),
  ];
}

/** A figure from a suite that reports one value per line (bench/machines.ts, bench/subagents.ts). */
function fromResult(r: BenchResult): Figure {
  const id = `result:${r.name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
  return { id, label: r.name, definition: "its label says what is timed", unit: r.unit as Figure["unit"], n: 1, median: r.value, tail: r.value, tailKind: "max", target: r.target, ok: r.ok };
}

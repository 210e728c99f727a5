// Registry replay at start: 10,000 threads and 200,000 events from the JSONL log.
import { mkdtempSync, openSync, writeSync, closeSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeEvent, newThreadId, type ThreadEventBody } from "../src/threads/events.js";
import { JsonlEventStore } from "../src/threads/store.js";
import { ThreadRegistry } from "../src/threads/registry.js";
import { figure, type Figure } from "./lib/figure.js";

export interface ReplayScale {
  threads: number;
  events: number;
  runs: number;
}

export const REPLAY_FULL: ReplayScale = { threads: 10_000, events: 200_000, runs: 10 };
export const REPLAY_TINY: ReplayScale = { threads: 50, events: 500, runs: 3 };

export async function benchReplay({ threads: THREADS, events: EVENTS, runs: RUNS }: ReplayScale): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), "baton-bench-replay-"));
  const path = join(dir, "events.jsonl");
  const fd = openSync(path, "w", 0o600);
  const ids = Array.from({ length: THREADS }, () => newThreadId());
  let written = 0;
  const lines: string[] = [];
  const flush = () => {
    writeSync(fd, lines.join(""));
    lines.length = 0;
  };
  for (const id of ids) {
    lines.push(`${JSON.stringify(makeEvent(id, { type: "thread_created", workspace: "/home/dev/code/project", agent: "claude" }))}\n`);
    written++;
  }
  const bodies = (i: number, id: string): ThreadEventBody =>
    i % 4 === 0
      ? { type: "route_attached", route: `telegram:${i % 5000}:${i % 7}` }
      : i % 4 === 1
        ? { type: "session_observed", session: `${id}-${i}` }
        : i % 4 === 2
          ? { type: "route_detached", route: `telegram:${(i - 2) % 5000}:${(i - 2) % 7}` }
          : { type: "host_changed", agent: "claude", profile: "fast" };
  for (let i = 0; written < EVENTS; i++, written++) {
    const id = ids[i % THREADS];
    lines.push(`${JSON.stringify(makeEvent(id, bodies(i, id)))}\n`);
    if (lines.length >= 10_000) flush();
  }
  flush();
  closeSync(fd);

  const runs: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    const { registry, report } = await ThreadRegistry.open(new JsonlEventStore(path));
    runs.push(performance.now() - started);
    if (report.events !== EVENTS || [...registry.all()].length !== THREADS) throw new Error("replay lost events");
  }
  rmSync(dir, { recursive: true, force: true });
  return [
    figure(
      {
        id: "replay",
        label: "registry replay",
        unit: "ms",
        definition: `ThreadRegistry.open over a JSONL log of ${THREADS.toLocaleString("en")} threads / ${EVENTS.toLocaleString("en")} events, in the bench process, each run a fresh open`,
      },
      runs,
      { on: "median", below: 1000, text: "< 1 s" },
    ),
  ];
}

// `npm run bench`: every performance figure of SPEC §10 that is measured here, in one run.
import { benchInbound } from "./inbound.js";
import { benchReplay } from "./replay.js";
import { benchStartup } from "./startup.js";
import { benchStreaming } from "./streaming.js";
import { benchHandoffList } from "../src/bench/handoff-list.js";
import { benchMachines } from "./machines.js";
import { benchSubagents } from "./subagents.js";
import type { BenchResult } from "./types.js";

const suites: Array<[string, () => Promise<BenchResult[]>]> = [
  ["registry replay", benchReplay],
  ["inbound latency", benchInbound],
  ["startup and memory", benchStartup],
  ["handoff list", benchHandoffList],
  ["streaming", benchStreaming],
  ["machines over ssh", benchMachines],
  ["subagents", benchSubagents],
];

const only = process.argv[2];
const results: BenchResult[] = [];
for (const [name, run] of suites) {
  if (only && !name.includes(only)) continue;
  process.stderr.write(`… ${name}\n`);
  for (const r of await run()) {
    results.push(r);
    const mark = r.ok === undefined ? " " : r.ok ? "✓" : "✗";
    process.stdout.write(`${mark} ${r.name}: ${Number.isInteger(r.value) ? r.value : r.value.toFixed(r.value < 10 ? 2 : 0)}${r.unit ? ` ${r.unit}` : ""}${r.target ? `  (target ${r.target})` : ""}\n`);
  }
}
if (process.argv.includes("--json")) process.stdout.write(JSON.stringify(results, null, 2) + "\n");
process.exit(0);

// `npm run bench`: every performance figure, measured end to end as its label says, in one run.
// `npm run bench -- --suite inbound --suite startup` (or `npm run bench -- inbound startup`) runs
// only those suites, by id or by a word of their name; `--list` names them; `--tiny` runs each at a
// toy scale (what the bench's own test does); `--json` prints the figures as JSON too. Each suite
// ends with its own time; a guard figure that is missed fails the run.
import { cpus, loadavg } from "node:os";
import { benchSuites, type Scale, type Suite } from "./suites.js";
import { formatFigure, type Figure } from "./lib/figure.js";
import { machineCpu } from "./lib/probes.js";

const args = process.argv.slice(2);
const scale: Scale = args.includes("--tiny") ? "tiny" : "full";
const suites = benchSuites(scale);
if (args.includes("--list")) {
  for (const s of suites) process.stdout.write(`${s.id.padEnd(12)} ${s.name}\n`);
  process.exit(0);
}
const selected = chosen(suites, args);

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
process.stdout.write(
  `Baton bench — ${cpus().length} cores (${cpus()[0]?.model.trim() ?? "unknown CPU"}), Node ${process.version}, ${new Date().toISOString().slice(0, 16)}Z, load average ${load()}${scale === "tiny" ? ", TINY scale (a check of the harness, not figures)" : ""}\n`,
);
const cpuAtStart = machineCpu();
const runStart = performance.now();
const figures: Figure[] = [];
let failed = false;
for (const suite of selected) {
  process.stderr.write(`… ${suite.name}\n`);
  const suiteStart = performance.now();
  try {
    for (const f of await suite.run()) {
      if (typeof f === "string") {
        process.stdout.write(`${f}\n`);
        continue;
      }
      figures.push(f);
      process.stdout.write(`${formatFigure(f)}\n`);
    }
  } catch (error) {
    // A suite that cannot measure says so and fails the run: a figure is never reported as zero.
    failed = true;
    process.stdout.write(`✗ ${suite.name}: could not measure: ${(error as Error).stack ?? error}\n`);
  }
  process.stdout.write(`  (${suite.id}: ${seconds(performance.now() - suiteStart)}, load average ${load()})\n`);
}
// Steal: time the hypervisor ran other machines on this VM's cores. Runs on a shared host differ
// most by it, so each run says how much there was.
const stolen = machineCpu().stealSince(cpuAtStart);
process.stdout.write(
  `${selected.length} suite${selected.length === 1 ? "" : "s"} in ${seconds(performance.now() - runStart)}; load average at the end ${load()}; the hypervisor took ${stolen.toFixed(1)} % of the cores' time during the run (steal)\n`,
);
// At the toy scale the figures are a check of the harness, not of Baton.
const broken = scale === "full" ? figures.filter((f) => f.guard && !f.ok) : [];
for (const f of broken) process.stdout.write(`✗ guard missed: ${f.label} (${f.target})\n`);
if (args.includes("--json")) process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
process.exit(failed || broken.length > 0 ? 1 : 0);

/** The suites the arguments name (`--suite <name>` or bare names; by id, or a word of the name); all when none. */
function chosen(all: Suite[], argv: string[]): Suite[] {
  const names: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--suite") {
      const name = argv[++i];
      if (!name || name.startsWith("--")) fail("--suite needs a suite's name");
      names.push(name);
    } else if (argv[i].startsWith("--suite=")) names.push(argv[i].slice("--suite=".length));
    else if (!argv[i].startsWith("--")) names.push(argv[i]);
  }
  if (names.length === 0) return all;
  const unknown = names.filter((n) => !all.some((s) => matches(s, n)));
  if (unknown.length > 0) fail(`no suite named ${unknown.map((n) => `"${n}"`).join(", ")}${scale === "tiny" ? " at the tiny scale" : ""}. The suites: ${all.map((s) => s.id).join(", ")}`);
  return all.filter((s) => names.some((n) => matches(s, n)));
}

function matches(suite: Suite, name: string): boolean {
  return suite.id === name || suite.name.includes(name);
}

function fail(message: string): never {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}

function seconds(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
}

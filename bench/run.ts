// `npm run bench`: every performance figure, measured end to end as its label says, in one run.
// `npm run bench -- inbound startup` runs only those suites; `--tiny` runs each at a toy scale
// (what the bench's own test does); `--json` prints the figures as JSON too.
import { cpus, loadavg } from "node:os";
import { benchSuites, type Scale } from "./suites.js";
import { formatFigure, type Figure } from "./lib/figure.js";
import { machineCpu } from "./lib/probes.js";

const args = process.argv.slice(2);
const scale: Scale = args.includes("--tiny") ? "tiny" : "full";
const only = args.filter((a) => !a.startsWith("--"));

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
process.stdout.write(
  `Baton bench — ${cpus().length} cores (${cpus()[0]?.model.trim() ?? "unknown CPU"}), Node ${process.version}, ${new Date().toISOString().slice(0, 16)}Z, load average ${load()}${scale === "tiny" ? ", TINY scale (a check of the harness, not figures)" : ""}\n`,
);
const cpuAtStart = machineCpu();
const figures: Figure[] = [];
let failed = false;
for (const suite of benchSuites(scale)) {
  if (only.length > 0 && !only.some((name) => suite.name.includes(name))) continue;
  process.stderr.write(`… ${suite.name}\n`);
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
}
// Steal: time the hypervisor ran other machines on this VM's cores. Runs on a shared host differ
// most by it, so each run says how much there was.
const stolen = machineCpu().stealSince(cpuAtStart);
process.stdout.write(`load average at the end ${load()}; the hypervisor took ${stolen.toFixed(1)} % of the cores' time during the run (steal)\n`);
if (args.includes("--json")) process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
process.exit(failed ? 1 : 0);

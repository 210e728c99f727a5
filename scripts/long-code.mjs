// Lists the functions over 60 lines and the files over 300 (the team's limits), longest first:
// `node scripts/long-code.mjs [paths…]` (default src/). Biome counts them (its rules
// noExcessiveLinesPerFunction and noExcessiveLinesPerFile, run with only those two on); they are
// not in biome.jsonc because a split is a judgement, not something every lint run should demand.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const MAX_FUNCTION_LINES = 60;
const MAX_FILE_LINES = 300;

const paths = process.argv.slice(2);
const configDir = mkdtempSync(join(tmpdir(), "baton-long-code-"));
const rules = {
  recommended: false,
  complexity: { noExcessiveLinesPerFunction: { level: "error", options: { maxLines: MAX_FUNCTION_LINES } } },
  style: { noExcessiveLinesPerFile: { level: "error", options: { maxLines: MAX_FILE_LINES } } },
};
writeFileSync(join(configDir, "biome.json"), JSON.stringify({ root: true, linter: { enabled: true, rules } }));
let output;
try {
  const args = ["biome", "lint", `--config-path=${configDir}`, "--reporter=json", "--max-diagnostics=none", ...(paths.length > 0 ? paths : ["src"])];
  // Biome exits 1 when it found any: the report is on stdout either way.
  output = execFileSync("npx", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], maxBuffer: 64 * 1024 * 1024 });
} catch (error) {
  output = error.stdout;
} finally {
  rmSync(configDir, { recursive: true, force: true });
}

const found = { function: [], file: [] };
for (const d of JSON.parse(output).diagnostics) {
  const lines = /too many lines \((\d+)\)/.exec(d.message)?.[1];
  if (!lines) continue;
  const kind = d.category.endsWith("PerFunction") ? "function" : "file";
  found[kind].push({ lines: Number(lines), where: kind === "function" ? `${d.location.path}:${d.location.start.line}` : d.location.path });
}
const limits = { function: MAX_FUNCTION_LINES, file: MAX_FILE_LINES };
for (const [kind, limit] of Object.entries(limits)) {
  console.log(`${found[kind].length} ${kind}s over ${limit} lines`);
  for (const { lines, where } of found[kind].sort((a, b) => b.lines - a.lines)) console.log(`  ${String(lines).padStart(4)}  ${where}`);
}

// Lists the functions over 60 lines and the files over 300 (the team's limits), longest first:
// `node scripts/long-code.mjs [paths…]` (default src/). Biome counts them (its rules
// noExcessiveLinesPerFunction and noExcessiveLinesPerFile, run with only those two on; a file's
// count leaves out the lines inside a block comment or a template literal). They are not in
// biome.jsonc: test/layers/sizes.test.ts holds src/ to them, so a lint run on work in progress
// does not stop at a long function.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const LIMITS = { function: 60, file: 300 };

/** The functions and files over `limits` under `paths` (relative to the repository), longest first. */
export function findLongCode(paths = ["src"], limits = LIMITS) {
  const configDir = mkdtempSync(join(tmpdir(), "baton-long-code-"));
  const rules = {
    recommended: false,
    complexity: { noExcessiveLinesPerFunction: { level: "error", options: { maxLines: limits.function } } },
    style: { noExcessiveLinesPerFile: { level: "error", options: { maxLines: limits.file } } },
  };
  writeFileSync(join(configDir, "biome.json"), JSON.stringify({ root: true, linter: { enabled: true, rules } }));
  let output;
  try {
    const args = ["biome", "lint", `--config-path=${configDir}`, "--reporter=json", "--max-diagnostics=none", ...paths];
    // Biome exits 1 when it found any: the report is on stdout either way.
    const cwd = resolve(fileURLToPath(import.meta.url), "../..");
    output = execFileSync("npx", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], maxBuffer: 64 * 1024 * 1024 });
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
  for (const list of Object.values(found)) list.sort((a, b) => b.lines - a.lines);
  return found;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const paths = process.argv.slice(2);
  const found = findLongCode(paths.length > 0 ? paths : undefined);
  for (const [kind, limit] of Object.entries(LIMITS)) {
    console.log(`${found[kind].length} ${kind}s over ${limit} lines`);
    for (const { lines, where } of found[kind]) console.log(`  ${String(lines).padStart(4)}  ${where}`);
  }
}

#!/usr/bin/env node
// `npm run test:agents`: installs the real agent CLIs this suite drives (their own package.json and
// lockfile here, never Baton's dependencies), builds Baton, and runs the suite. As root, where the
// kernel allows it, the run happens in a network namespace of its own with only loopback up, so a
// CLI setting overlooked by the suite cannot reach the internet; elsewhere the CLIs still only know
// the fake servers' loopback addresses. Arguments go to vitest (`npm run test:agents -- gemini`).
import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const suite = dirname(fileURLToPath(import.meta.url));
const repo = join(suite, "..", "..");

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: "inherit", ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

function step(what, command, args, options) {
  const code = run(command, args, options);
  if (code !== 0) {
    console.error(`test:agents: ${what} failed (exit ${code})`);
    process.exit(code);
  }
}

const installed = join(suite, "node_modules", ".package-lock.json");
if (!existsSync(installed) || statSync(installed).mtimeMs < statSync(join(suite, "package-lock.json")).mtimeMs) {
  step("installing the agent CLIs", "npm", ["ci", "--no-audit", "--no-fund"], { cwd: suite });
}
step("building Baton", "npm", ["run", "build"], { cwd: repo });

const vitest = [join(repo, "node_modules", ".bin", "vitest"), "run", "--config", join(suite, "vitest.config.ts"), ...process.argv.slice(2)];
const isolated = process.getuid?.() === 0 && run("unshare", ["--net", "true"], { stdio: "ignore" }) === 0;
if (!isolated) console.warn("test:agents: not root or no network namespaces here: running without network isolation (the CLIs are pointed at loopback fakes only)");
const code = isolated
  ? run("unshare", ["--net", "sh", "-c", 'ip link set lo up && exec "$0" "$@"', ...vitest], { cwd: repo, env: { ...process.env, BATON_AGENTS_ISOLATED: "1" } })
  : run(vitest[0], vitest.slice(1), { cwd: repo });
process.exit(code);

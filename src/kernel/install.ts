// Where this Baton install keeps its files. The code runs from three places — src/ under the test
// runner, tsc's dist/ (the demo agent) and the bundle in dist/bundle/ (the CLI, chunks side by
// side) — so a path relative to the running module would differ between them; paths relative to
// the install's folder do not.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The folder that holds bin/baton.js and package.json: found by walking up from this module. */
export const BATON_ROOT = (() => {
  const start = dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "bin", "baton.js")) && existsSync(join(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) throw new Error(`baton: cannot find its install folder (bin/baton.js) above ${start}`);
  }
})();

/** The CLI that ships (bin/baton.js runs it): the bundle of dist/bot/cli.js. */
export const CLI_ENTRY = join(BATON_ROOT, "dist", "bundle", "cli.js");

/** The `baton` command of this install. */
export const BATON_BIN = join(BATON_ROOT, "bin", "baton.js");

/** The demo agent's process entry: a second entry of the bundle (an install has no node_modules for the SDKs it uses). */
export const DEMO_AGENT_ENTRY = join(BATON_ROOT, "dist", "bundle", "demo-agent.js");

export function batonVersion(): string {
  return readPackageJson().version;
}

function readPackageJson(): { version: string } {
  return JSON.parse(readFileSync(join(BATON_ROOT, "package.json"), "utf8")) as { version: string };
}

// `npm install` in a clone builds dist/ (TypeScript and rolldown are dev dependencies). Where TypeScript is not
// installed — `npm ci --omit=dev` on a tree that already has dist/ — there is nothing to build
// with, so this says so and leaves dist/ as it is instead of failing the install.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
let tsc;
try {
  const manifest = createRequire(join(root, "package.json")).resolve("typescript/package.json");
  tsc = join(dirname(manifest), JSON.parse(readFileSync(manifest, "utf8")).bin.tsc);
} catch {
  tsc = undefined;
}
if (!tsc || !existsSync(join(root, "src"))) {
  const built = existsSync(join(root, "dist", "bundle", "cli.js"));
  console.log(built ? "baton: TypeScript is not installed; using the dist/ already built." : "baton: dist/ is not built and TypeScript is not installed (npm ci --omit=dev?): run `npm install` with dev dependencies to build.");
  process.exit(0);
}
const result = spawnSync(process.execPath, [tsc, "-p", join(root, "tsconfig.json")], { stdio: "inherit" });
if (result.status !== 0) process.exit(result.status ?? 1);
// The shipped CLI is the bundle of tsc's output (scripts/bundle.mjs, with rolldown, a dev dependency like TypeScript).
const bundled = spawnSync(process.execPath, [join(root, "scripts", "bundle.mjs")], { stdio: "inherit" });
process.exit(bundled.status ?? 1);

// Builds dist/ (tsc, then the bundle: scripts/bundle.mjs) without pulling the floor from under a
// Baton that runs from it, or a test run reading it:
// - the build goes to a staging folder beside dist/ and is moved in file by file with rename(2):
//   the content-hashed chunks first, the entry points (dist/bundle/cli.js, demo-agent.js) last, so
//   a process starting meanwhile finds the old entry with its chunks or the new one with its own;
// - the previous build's files stay one build longer: a Baton started from it still finds the
//   chunks it loads lazily (a platform's SDK, the session readers) after a rebuild;
// - `--if-stale` (the `prepare` script: `npm install`, `npx baton` in a clone) does nothing when
//   dist/ was built from the same sources (a hash of them in dist/.build.json);
// - `--clean` (prepack) replaces dist/ whole, with nothing carried over, for the tarball.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const STAMP = join(dist, ".build.json");
/** What the build reads besides node_modules (the lockfile stands for the packages bundled). */
const INPUTS = ["src", "tsconfig.json", "package-lock.json", "scripts/build.mjs", "scripts/bundle.mjs", "scripts/bundle"];
/** Moved in last: a process that starts from one of these finds every chunk it imports already there. */
const ENTRIES = new Set(["bundle/cli.js", "bundle/demo-agent.js"]);
/** A build holding the install lock longer than this has died: the lock is taken over. */
const LOCK_STALE_MS = 120_000;
const LOCK_POLL_MS = 100;

const args = new Set(process.argv.slice(2));
const ifStale = args.has("--if-stale");
const clean = args.has("--clean");

/** Every file under `dir`, as paths relative to it with forward slashes. */
function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) =>
      relative(dir, join(entry.parentPath ?? entry.path, entry.name))
        .split(sep)
        .join("/"),
    )
    .sort();
}

function inputsHash() {
  const hash = createHash("sha256");
  for (const input of INPUTS) {
    const path = join(root, input);
    if (!existsSync(path)) continue;
    const files = statSync(path).isDirectory() ? filesUnder(path).map((f) => `${input}/${f}`) : [input];
    for (const file of files)
      hash
        .update(`${file}\0`)
        .update(readFileSync(join(root, file)))
        .update("\0");
  }
  return hash.digest("hex");
}

function readStamp() {
  try {
    return JSON.parse(readFileSync(STAMP, "utf8"));
  } catch {
    return undefined;
  }
}

function findTsc() {
  try {
    const manifest = createRequire(join(root, "package.json")).resolve("typescript/package.json");
    return join(dirname(manifest), JSON.parse(readFileSync(manifest, "utf8")).bin.tsc);
  } catch {
    return undefined;
  }
}

function run(file, argv) {
  const result = spawnSync(process.execPath, [file, ...argv], { stdio: "inherit" });
  if (result.status !== 0) throw new Error(`${relative(root, file)} failed (${result.status ?? result.signal})`);
}

/** A lock around moving files into dist/, so two builds at once (npm test beside npx baton) do not interleave. */
function withInstallLock(action) {
  const lock = join(root, ".dist-install.lock");
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
      if (Date.now() - statSync(lock, { throwIfNoEntry: false })?.mtimeMs > LOCK_STALE_MS) rmSync(lock, { recursive: true, force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, LOCK_POLL_MS);
    }
  }
  try {
    return action();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function moveIn(staging, file) {
  mkdirSync(dirname(join(dist, file)), { recursive: true });
  renameSync(join(staging, file), join(dist, file));
}

/** Removes the files neither this build nor the one before it wrote, and the folders left empty. */
function prune(keep) {
  for (const file of filesUnder(dist)) if (!keep.has(file) && file !== ".build.json") unlinkSync(join(dist, file));
  const dirs = readdirSync(dist, { recursive: true, withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => join(e.parentPath ?? e.path, e.name));
  for (const dir of dirs.sort((a, b) => b.length - a.length)) if (readdirSync(dir).length === 0) rmdirSync(dir);
}

function install(staging, stamp) {
  const files = filesUnder(staging);
  if (clean || !existsSync(dist)) {
    writeFileSync(join(staging, ".build.json"), JSON.stringify({ ...stamp, files }));
    const old = `${dist}.old-${process.pid}`;
    if (existsSync(dist)) renameSync(dist, old);
    renameSync(staging, dist);
    rmSync(old, { recursive: true, force: true });
    return;
  }
  const previous = readStamp()?.files ?? [];
  for (const file of files) if (!ENTRIES.has(file)) moveIn(staging, file);
  for (const file of files) if (ENTRIES.has(file)) moveIn(staging, file);
  prune(new Set([...files, ...previous]));
  writeFileSync(`${STAMP}.${process.pid}`, JSON.stringify({ ...stamp, files }));
  renameSync(`${STAMP}.${process.pid}`, STAMP);
  rmSync(staging, { recursive: true, force: true });
}

const tsc = findTsc();
if (!tsc || !existsSync(join(root, "src"))) {
  // `npm ci --omit=dev` on a tree that already has dist/: nothing to build with, and nothing to do.
  const built = existsSync(join(dist, "bundle", "cli.js"));
  console.log(
    built
      ? "baton: TypeScript is not installed; using the dist/ already built."
      : "baton: dist/ is not built and TypeScript is not installed (npm ci --omit=dev?): run `npm install` with dev dependencies to build.",
  );
  process.exit(ifStale ? 0 : 1);
}
const inputs = inputsHash();
if (ifStale && !clean) {
  const stamp = readStamp();
  if (stamp?.inputs === inputs && stamp.files.every((file) => existsSync(join(dist, file)))) {
    console.log("baton: dist/ is up to date.");
    process.exit(0);
  }
}
const staging = join(root, `.dist-staging-${process.pid}`);
rmSync(staging, { recursive: true, force: true });
try {
  run(tsc, ["-p", join(root, "tsconfig.json"), "--outDir", staging]);
  run(join(root, "scripts", "bundle.mjs"), [staging]);
  withInstallLock(() => install(staging, { inputs }));
} catch (error) {
  console.error(`baton: build failed: ${error.message}`);
  process.exitCode = 1;
} finally {
  rmSync(staging, { recursive: true, force: true });
}

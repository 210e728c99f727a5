// Builds never pull the floor away (scripts/build.mjs), in a copy of the clone: `prepare` does
// nothing when dist/ was built from the same sources; a rebuild moves files in with rename, entry
// points last, so a process reading dist/ meanwhile always finds an entry's chunks; a Baton started
// before a rebuild that changed its chunks keeps loading the ones it has not loaded yet; files two
// builds old are removed.
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { askWebChat, cleanUp, CLEANUP_MS, copyOfClone, pathWith, startUntil, stop, tempDir } from "./helpers.js";

afterEach(cleanUp, CLEANUP_MS);

const BUILD_MS = 180_000;
/** How often the reader checks the entry points while a rebuild runs. */
const READ_EVERY_MS = 2;

function build(root: string, ...flags: string[]): string {
  const res = spawnSync(process.execPath, [join(root, "scripts", "build.mjs"), ...flags], { cwd: root, encoding: "utf8", timeout: BUILD_MS });
  if (res.status !== 0) throw new Error(`build ${flags.join(" ")} failed:\n${res.stdout}\n${res.stderr}`);
  return res.stdout;
}

function builtFiles(root: string): string[] {
  return (JSON.parse(readFileSync(join(root, "dist", ".build.json"), "utf8")) as { files: string[] }).files;
}

function onDisk(root: string): string[] {
  const dist = join(root, "dist");
  return readdirSync(dist, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name !== ".build.json")
    .map((e) => join(e.parentPath, e.name).slice(dist.length + 1))
    .sort();
}

/** The chunks an entry imports statically (what Node needs before the entry's first line runs), recursively. */
function missingImports(bundle: string, entry: string, seen = new Set<string>()): string[] {
  if (seen.has(entry)) return [];
  seen.add(entry);
  let text: string;
  try {
    text = readFileSync(join(bundle, entry), "utf8");
  } catch {
    return [entry];
  }
  const imports = [...text.matchAll(/(?:^|[;}\n])import(?:[^"'`(]*?from)?\s*["'`]\.\/([^"'`]+)["'`]/g)].map((m) => m[1]);
  return imports.flatMap((file) => missingImports(bundle, file, seen));
}

/** A change that alters the code of the chunks holding these modules (so their hashed names change). */
function touchModules(root: string, mark: string): void {
  for (const file of ["src/render/markdown-parser.ts", "src/agents/acp-wire.ts"]) appendFileSync(join(root, file), `\n(globalThis as Record<string, unknown>).__batonBuildMark = "${mark}";\n`);
}

describe("scripts/build.mjs", { timeout: 600_000 }, () => {
  it("does nothing when dist/ is current, rebuilds after a change, and never shows a half-built dist/", async () => {
    const root = copyOfClone(tempDir("baton-build-"));
    expect(build(root, "--if-stale")).not.toContain("up to date");
    const cli = join(root, "dist", "bundle", "cli.js");
    const builtAt = statSync(cli).mtimeMs;
    expect(build(root, "--if-stale")).toContain("baton: dist/ is up to date.");
    expect(statSync(cli).mtimeMs).toBe(builtAt);

    // A Baton started from the first build, before the rebuild; it has not rendered or prompted yet.
    const first = builtFiles(root);
    const outside = tempDir("baton-outside-");
    const config = join(outside, "baton.yaml");
    writeFileSync(config, `agents: { default: demo }\nworkspaces: { roots: ["${outside}"], default: "${outside}" }\nplatforms:\n  web: { listen: 0 }\n`);
    const env = { ...process.env, PATH: pathWith(), HOME: outside };
    const daemon = await startUntil(process.execPath, [join(root, "bin", "baton.js"), "start", "--config", config, "--data-dir", join(outside, "data")], { cwd: outside, env }, /Baton ready/);

    touchModules(root, "second");
    // Rebuilt in the background while this process checks, every few ms, that each entry's chunks are there.
    const rebuild = spawn(process.execPath, [join(root, "scripts", "build.mjs"), "--if-stale"], { cwd: root, stdio: "ignore" });
    const bundle = join(root, "dist", "bundle");
    const seenMissing = new Set<string>();
    let checks = 0;
    const reader = setInterval(() => {
      checks++;
      for (const entry of ["cli.js", "demo-agent.js"]) for (const missing of missingImports(bundle, entry)) seenMissing.add(missing);
    }, READ_EVERY_MS);
    const code = await new Promise<number | null>((resolve) => rebuild.once("exit", resolve));
    clearInterval(reader);
    expect(code).toBe(0);
    expect(checks).toBeGreaterThan(10);
    expect([...seenMissing]).toEqual([]);

    const second = builtFiles(root);
    const replaced = first.filter((file) => file.startsWith("bundle/") && !second.includes(file));
    expect(replaced.length).toBeGreaterThan(0); // the change did change chunk names
    for (const file of first) expect(existsSync(join(root, "dist", file)), file).toBe(true); // kept one build longer
    // The running Baton loads its renderer and its agent client now, from the first build's chunks.
    expect(await askWebChat(/^Web chat: (http:\S+)$/m.exec(daemon.out())![1], "after the rebuild")).toMatch(/you said/);
    expect(daemon.err()).not.toMatch(/ENOENT|Cannot find module/);
    expect(await stop(daemon.child)).toBe(0);

    // A third build removes what only the first one wrote.
    touchModules(root, "third");
    build(root);
    for (const file of replaced) expect(existsSync(join(root, "dist", file)), file).toBe(false);
    for (const file of second) expect(existsSync(join(root, "dist", file)), file).toBe(true);
  });

  it("`--clean` replaces dist/ whole, leaving nothing of earlier builds", () => {
    const root = copyOfClone(tempDir("baton-build-"));
    build(root);
    touchModules(root, "changed");
    build(root);
    expect(onDisk(root).length).toBeGreaterThan(builtFiles(root).length); // the first build's chunks, kept
    build(root, "--clean");
    expect(onDisk(root)).toEqual([...builtFiles(root)].sort());
    expect(existsSync(join(root, "dist", "bundle", "cli.js"))).toBe(true);
  });
});

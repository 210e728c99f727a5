// Copies the session files a real CLI wrote into test/fixtures/agents/<kind>/, for the fast store
// tests of the normal suite (test/support/agent-fixtures.ts puts them back). The sandbox's
// temporary root becomes a placeholder, in contents and in Claude's encoded folder names; a SQLite
// database is kept as the SQL that builds it (its `-wal` and `-shm` files read into it). The
// placeholder API keys must never reach a session file: the copy refuses a file that holds one.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { type AgentFixtureMeta, encodePath, FIXTURES_DIR, filesUnder, isSqliteFile, replaceRoot, ROOT_PLACEHOLDER, SQLITE_DUMP_SUFFIX, sqliteDump } from "../../support/agent-fixtures.js";
import { PLACEHOLDER_KEYS, type Sandbox } from "./sandbox.js";

/** True when this run should refresh the committed fixtures (`BATON_CAPTURE_FIXTURES=1`). */
export function capturing(): boolean {
  return process.env.BATON_CAPTURE_FIXTURES === "1";
}

/** Copies `paths` (relative to the sandbox home) into the kind's fixture folder, replacing it. */
export async function captureFixtures(box: Sandbox, meta: AgentFixtureMeta, paths: string[]): Promise<string[]> {
  const target = join(FIXTURES_DIR, meta.kind);
  rmSync(target, { recursive: true, force: true });
  const written: string[] = [];
  for (const rel of paths) {
    const from = join(box.home, rel);
    if (!existsSync(from)) continue;
    for (const file of statSync(from).isDirectory() ? filesUnder(from) : [from]) {
      if (/-(wal|shm)$/.test(file) && existsSync(file.replace(/-(wal|shm)$/, ""))) continue;
      const sqlite = isSqliteFile(file);
      const name = relative(box.home, file).split(encodePath(box.root)).join(encodePath(ROOT_PLACEHOLDER)) + (sqlite ? SQLITE_DUMP_SUFFIX : "");
      const text = replaceRoot(sqlite ? await sqliteDump(file) : readFileSync(file, "utf8"), box.root, ROOT_PLACEHOLDER);
      for (const key of Object.values(PLACEHOLDER_KEYS)) if (text.includes(key)) throw new Error(`${file} holds an API key; redact it before committing`);
      const to = join(target, "home", name);
      mkdirSync(dirname(to), { recursive: true });
      writeFileSync(to, text);
      written.push(relative(target, to));
    }
  }
  if (written.length === 0) throw new Error(`nothing to capture in ${paths.join(", ")}`);
  const record = JSON.stringify({ ...meta, files: written }, null, 2)
    .split(box.root)
    .join(ROOT_PLACEHOLDER);
  writeFileSync(join(target, "fixture.json"), `${record}\n`);
  return written;
}

// A listing loads only the readers of stores that are on disk. These check what that must not
// lose: a store found only outside its location (Cursor's Composer database, $OPENCODE_DB,
// $DSH_SESSION_ROOT) is still read, an unreadable location is still reported, and the command
// loads neither the other readers nor what `export` and `resume` need.

import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { listSessions } from "../../../src/agents/stores/index.js";
import { makeBase, T_OLD } from "../../fakes/stores/common.js";
import { claudeFixture } from "../../fakes/stores/jsonl-stores.js";
import { dshFixture, opencodeFixture, writeSqlite } from "../../fakes/stores/other-stores.js";
import { STORE_ENV } from "../../handoff/sessions/cli-helper.js";

const BATON = path.join(process.cwd(), "bin/baton.js");
const RECORD_IMPORTS = path.join(process.cwd(), "test/support/record-imports.mjs");

describe("stores whose sessions live outside their location", () => {
  it("lists Cursor's Composer conversations with no transcripts folder", async () => {
    const b = makeBase("composer-only");
    const id = "c0mp0ser-0000-4000-8000-000000000007";
    await writeSqlite(path.join(b.home, ".config", "Cursor", "User", "globalStorage", "state.vscdb"), [
      ["CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"],
      ["INSERT INTO cursorDiskKV VALUES (?, ?)", [`composerData:${id}`, JSON.stringify({ composerId: id, name: "Only in the IDE", lastUpdatedAt: Date.parse(T_OLD), conversation: [] })]],
    ]);
    const { sessions, warnings } = await listSessions(b.opts);
    expect(sessions.map((s) => [s.runtime, s.id])).toEqual([["cursor", id]]);
    expect(warnings).toEqual([]);
  });

  it("lists OpenCode's database at $OPENCODE_DB and DeepSeek Harness sessions under $DSH_SESSION_ROOT, their default folders gone", async () => {
    const opencode = await opencodeFixture();
    const data = path.join(opencode.opts.home!, ".local", "share", "opencode");
    const db = path.join(opencode.root, "elsewhere", "opencode.db");
    mkdirSync(path.dirname(db), { recursive: true });
    renameSync(path.join(data, "opencode.db"), db);
    rmSync(data, { recursive: true });
    const fromDb = await listSessions({ ...opencode.opts, env: { OPENCODE_DB: db } });
    expect(fromDb.sessions.map((s) => s.id)).toContain(opencode.main.id);

    const dsh = dshFixture();
    const root = path.join(dsh.root, "dsh-sessions");
    renameSync(path.join(dsh.opts.home!, ".dsh", "sessions"), root);
    rmSync(path.join(dsh.opts.home!, ".dsh"), { recursive: true });
    const fromRoot = await listSessions({ ...dsh.opts, env: { DSH_SESSION_ROOT: root } });
    expect(fromRoot.sessions.map((s) => s.id)).toContain(dsh.main.id);
  });

  it("still reports a location it cannot read", async () => {
    const b = makeBase("not-a-dir");
    writeFileSync(path.join(b.home, ".claude"), "a file where the folder should be");
    const { warnings } = await listSessions(b.opts);
    expect(warnings).toEqual([expect.stringMatching(/^Claude Code: cannot read .*\.claude\/projects: ENOTDIR/)]);
  });
});

describe("`baton handoff list` as a command", () => {
  it("loads the reader of the one store on disk, not the others, sql.js or what export and resume need (briefs, plans, launch commands)", async () => {
    const f = claudeFixture();
    const log = path.join(f.root, "imports.log");
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: f.opts.home, BATON_IMPORT_LOG: log };
    for (const name of STORE_ENV) delete env[name];
    const child = spawn(process.execPath, ["--import", RECORD_IMPORTS, BATON, "handoff", "list"], { stdio: ["ignore", "pipe", "pipe"], env });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr.resume();
    const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
    expect(code).toBe(0);
    expect(out).toContain(f.main.id.slice(0, 8));
    const loaded = readFileSync(log, "utf8");
    expect(loaded).toContain("/dist/agents/products/claude/store.js");
    for (const absent of [
      "/dist/agents/products/codex/store.js",
      "/dist/agents/products/cursor/store.js",
      "/dist/agents/products/opencode/store.js",
      "/dist/agents/products/hermes/store.js",
      "/dist/agents/stores/sqlite.js",
      "/node_modules/sql.js/",
      "/dist/handoff/brief/",
      "/dist/handoff/sessions/commands.js",
      "/dist/handoff/sessions/plan.js",
      "/dist/agents/runtimes/index.js",
      "/dist/config/",
    ]) {
      expect(loaded, absent).not.toContain(absent);
    }
  });
});

// Reader details beyond the shared contract: Claude's title rules, Cursor's Composer database,
// and SQLite pages that are still in a live database's -wal file.

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findSession, listSessions } from "../../../src/agents/stores/index.js";
import { writeBrief } from "../../../src/handoff/brief/index.js";
import { openSqlite } from "../../../src/agents/stores/sqlite.js";
import { makeBase, T_MAIN, T_OLD, uuid, writeJsonl } from "../../fakes/stores/common.js";
import { cursorFixture } from "../../fakes/stores/jsonl-stores.js";
import { writeSqlite } from "../../fakes/stores/other-stores.js";

describe("Claude Code titles", () => {
  it("prefers a custom title, then the AI title, the last prompt, a summary, then the first prompt", async () => {
    const b = makeBase("titles");
    const dir = path.join(b.home, ".claude", "projects", "-p");
    const user = (id: string, text: string) => ({ type: "user", sessionId: id, cwd: b.cwdA, timestamp: T_MAIN, message: { role: "user", content: text } });
    const cases: Array<[string, unknown[], string]> = [
      [
        uuid(11),
        [user(uuid(11), "first"), { type: "summary", summary: "S" }, { type: "ai-title", aiTitle: "AI" }, { type: "custom-title", customTitle: "Custom" }, { type: "last-prompt", lastPrompt: "L" }],
        "Custom",
      ],
      [uuid(12), [user(uuid(12), "first"), { type: "summary", summary: "S" }, { type: "last-prompt", lastPrompt: "L" }, { type: "ai-title", aiTitle: "AI" }], "AI"],
      [uuid(13), [{ type: "summary", summary: "S" }, user(uuid(13), "first"), { type: "last-prompt", lastPrompt: "L" }], "L"],
      [uuid(14), [{ type: "summary", summary: "S" }, user(uuid(14), "first")], "S"],
      [uuid(15), [user(uuid(15), "<command-name>/init</command-name>"), user(uuid(15), "the real first prompt")], "the real first prompt"],
    ];
    for (const [id, lines] of cases) writeJsonl(path.join(dir, `${id}.jsonl`), lines);
    const { sessions } = await listSessions({ ...b.opts, runtime: "claude" });
    for (const [id, , title] of cases) expect(sessions.find((s) => s.id === id)?.title, id).toBe(title);
  });
});

describe("Cursor Composer database", () => {
  async function withComposer() {
    const f = cursorFixture();
    const db = path.join(f.opts.home!, ".config", "Cursor", "User", "globalStorage", "state.vscdb");
    const composerOnly = "c0mp0ser-0000-4000-8000-000000000042";
    const kv = (key: string, value: unknown): [string, unknown[]] => ["INSERT INTO cursorDiskKV VALUES (?, ?)", [key, JSON.stringify(value)]];
    await writeSqlite(db, [
      ["CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"],
      kv(`composerData:${composerOnly}`, {
        composerId: composerOnly,
        name: "Refactor the parser",
        createdAt: Date.parse(T_OLD),
        lastUpdatedAt: Date.parse(T_OLD),
        fullConversationHeadersOnly: [
          { bubbleId: "b1", type: 1 },
          { bubbleId: "b2", type: 2 },
        ],
      }),
      kv(`bubbleId:${composerOnly}:b1`, { type: 1, text: "Please refactor the parser module" }),
      kv(`bubbleId:${composerOnly}:b2`, { type: 2, text: "Done: split it into three files." }),
      // The same conversation as the main transcript: listed once, as the transcript cursor-agent can reopen.
      kv(`composerData:${f.main.id}`, { composerId: f.main.id, name: "duplicate", createdAt: Date.parse(T_MAIN), lastUpdatedAt: Date.parse(T_MAIN), conversation: [] }),
    ]);
    return { f, composerOnly };
  }

  it("lists Composer conversations, once per id, and writes briefs from their bubbles", async () => {
    const { f, composerOnly } = await withComposer();
    const { sessions } = await listSessions({ ...f.opts, runtime: "cursor" });
    expect(sessions.filter((s) => s.id === f.main.id)).toHaveLength(1);
    expect(sessions.find((s) => s.id === f.main.id)?.extra?.store).toBe("transcript");
    const composer = sessions.find((s) => s.id === composerOnly);
    expect(composer?.title).toBe("Refactor the parser");
    expect(composer?.native?.ok).toBe(false);
    const { path: brief } = await writeBrief({ ...f.opts, runtime: "cursor", sessionId: composerOnly, outputDir: path.join(f.root, "out") });
    const text = readFileSync(brief, "utf8");
    expect(text).toContain("Please refactor the parser module");
    expect(text).toContain("Done: split it into three files.");
    expect((await findSession(composerOnly.slice(0, 8), f.opts)).id).toBe(composerOnly);
  });
});

/** The real SQLite library writes the WAL here (through Python's sqlite3), not Baton's own code. */
const HAS_PYTHON_SQLITE = spawnSync("python3", ["-c", "import sqlite3"]).status === 0;

describe("SQLite write-ahead log", () => {
  it.skipIf(!HAS_PYTHON_SQLITE)("reads rows that are still only in the -wal file of a live database", async () => {
    const b = makeBase("wal");
    const db = path.join(b.home, "live.db");
    mkdirSync(path.dirname(db), { recursive: true });
    // A writer that exits without checkpointing leaves its last transactions in live.db-wal.
    const script = [
      "import sqlite3, os, sys",
      "c = sqlite3.connect(sys.argv[1])",
      "c.execute('PRAGMA journal_mode=WAL')",
      "c.execute('PRAGMA wal_autocheckpoint=0')",
      "c.execute('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)')",
      "c.commit()",
      "c.execute('PRAGMA wal_checkpoint(TRUNCATE)')",
      "c.executemany('INSERT INTO t (v) VALUES (?)', [('row %d' % i,) for i in range(500)])",
      "c.commit()",
      "os._exit(0)",
    ].join("\n");
    const r = spawnSync("python3", ["-c", script, db], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(existsSync(`${db}-wal`)).toBe(true);
    const file = await openSqlite(db);
    try {
      expect(file.query<{ n: number }>("SELECT count(*) AS n FROM t")[0].n).toBe(500);
    } finally {
      file.close();
    }
  });
});

describe("DeepSeek Harness", () => {
  it("lists a fork as a session of its own, and reads every zstd frame", async () => {
    const { dshFixture } = await import("../../fakes/stores/other-stores.js");
    const f = dshFixture();
    const { sessions } = await listSessions({ ...f.opts, runtime: "dsh" });
    const fork = sessions.find((s) => s.id === uuid(4));
    expect(fork?.subagentOf).toBeUndefined();
    const { decompressFrames } = await import("../../../src/agents/products/dsh/store.js");
    const magic = Buffer.from([0x28, 0xb5, 0x2f, 0xfd]);
    // A stand-in codec: each "frame" is the magic followed by plain text.
    const frames = Buffer.concat([magic, Buffer.from('{"type":"session","id":"x"}\n'), magic, Buffer.from('{"type":"user/message"}\n'), magic, Buffer.from("torn")]);
    const text = decompressFrames(frames, (b) => {
      if (b.subarray(4).toString() === "torn") throw new Error("bad frame");
      return b.subarray(4);
    });
    expect(text).toBe('{"type":"session","id":"x"}\n{"type":"user/message"}\n');
  });
});

describe("OpenClaw Gateway", () => {
  it("lists the same transcript id under two agents, and reports it as ambiguous", async () => {
    const { openclawFixture } = await import("../../fakes/stores/jsonl-stores.js");
    const f = openclawFixture();
    const { cpSync } = await import("node:fs");
    const agents = path.join(f.opts.home!, ".openclaw", "agents");
    cpSync(path.join(agents, "main"), path.join(agents, "coder"), { recursive: true });
    const { sessions } = await listSessions({ ...f.opts, runtime: "openclaw" });
    const copies = sessions.filter((s) => s.id === f.main.id);
    expect(copies.map((s) => s.extra?.agent).sort()).toEqual(["coder", "main"]);
    // The copied index still names agent:main:…, which is not qualified for agent "coder".
    expect(copies.find((s) => s.extra?.agent === "coder")?.native?.ok).toBe(false);
    await expect(findSession(f.main.id, f.opts)).rejects.toMatchObject({ reason: "ambiguous" });
  });
});

describe("transcript rules", () => {
  it("Gemini: a repeated message id replaces the earlier one, and a rewind drops what follows", async () => {
    const { geminiFixture } = await import("../../fakes/stores/jsonl-stores.js");
    const f = geminiFixture();
    const { path: brief } = await writeBrief({ ...f.opts, runtime: "gemini", sessionId: f.main.id, outputDir: path.join(f.root, "out") });
    const text = readFileSync(brief, "utf8");
    expect(text).toContain("Fixed the login check.");
    expect(text).not.toMatch(/\ndraft\n/);
    expect(text).not.toContain("this prompt was rewound");
  });

  it("Qwen Code: a call counts as a command once its result says it ran; one the person rejected is reported as not run", async () => {
    const { qwenFixture } = await import("../../fakes/stores/jsonl-stores.js");
    const f = qwenFixture();
    const { path: brief } = await writeBrief({ ...f.opts, runtime: "qwen", sessionId: f.main.id, outputDir: path.join(f.root, "out") });
    const text = readFileSync(brief, "utf8");
    const commands = text.slice(text.indexOf("## Recent commands"), text.indexOf("## Recent activity"));
    expect(commands).toContain("npm test");
    expect(commands).not.toContain("rm -rf /srv/data");
    expect(text).toMatch(/Rejected by the user, not run: run_shell_command .*rm -rf \/srv\/data/);
  });

  it("Codex: a thread resumed into a second rollout is listed once, and commands keep their exit codes", async () => {
    const { codexFixture } = await import("../../fakes/stores/jsonl-stores.js");
    const f = codexFixture();
    const { sessions } = await listSessions({ ...f.opts, runtime: "codex" });
    expect(sessions.filter((s) => s.id === f.main.id)).toHaveLength(1);
    expect(sessions.find((s) => s.id === f.main.id)?.file).toMatch(/2026-11-20T10-00-00/);
    const { path: brief } = await writeBrief({ ...f.opts, runtime: "codex", sessionId: f.main.id, outputDir: path.join(f.root, "out") });
    const text = readFileSync(brief, "utf8");
    expect(text).toContain("**Command** (exit 1)");
    expect(text).toContain("src/login.ts");
    expect(text).not.toContain("environment_context");
  });
});

describe("Cline", () => {
  it("lists a task held both as a CLI session and in the older task history once, as the session", async () => {
    const { clineFixture } = await import("../../fakes/stores/other-stores.js");
    const f = clineFixture();
    const { sessions } = await listSessions({ ...f.opts, runtime: "cline" });
    const both = sessions.filter((s) => s.id.startsWith("1763000000000"));
    expect(both.map((s) => s.id)).toEqual(["1763000000000_zz9"]);
    expect(both[0].native?.ok).toBe(true);
    const { path: brief } = await writeBrief({ ...f.opts, runtime: "cline", sessionId: f.other.id, outputDir: path.join(f.root, "out") });
    const text = readFileSync(brief, "utf8");
    expect(text).toContain("git log --oneline");
    expect(text).toContain("newFileCreated NOTES.md");
  });
});

describe("list --json", () => {
  it("carries no unredacted prompt text in any field", async () => {
    const { clineFixture } = await import("../../fakes/stores/other-stores.js");
    const { PLANTED_SECRET } = await import("../../fakes/stores/common.js");
    const { writeJson } = await import("../../fakes/stores/common.js");
    const f = clineFixture();
    const historyFile = path.join(f.opts.home!, ".cline", "data", "state", "taskHistory.json");
    const history = JSON.parse(readFileSync(historyFile, "utf8")) as Array<Record<string, unknown>>;
    history.push({ id: "1761000000000", ts: Date.parse(T_OLD), task: `old task with ${PLANTED_SECRET}`, cwdOnTaskInitialization: f.other.cwd });
    writeJson(historyFile, history);
    const { sessions } = await listSessions({ ...f.opts, runtime: "cline" });
    expect(JSON.stringify(sessions)).not.toContain(PLANTED_SECRET);
    const { path: brief } = await writeBrief({ ...f.opts, runtime: "cline", sessionId: "1761000000000", outputDir: path.join(f.root, "out") });
    const text = readFileSync(brief, "utf8");
    expect(text).toContain("old task with [REDACTED]");
  });
});

describe("fx", () => {
  it("reads turns with their command exit codes, base64 outputs and touched files", async () => {
    const { fxFixture } = await import("../../fakes/stores/other-stores.js");
    const f = fxFixture();
    const { path: brief } = await writeBrief({ ...f.opts, runtime: "fx", sessionId: f.main.id, outputDir: path.join(f.root, "out") });
    const text = readFileSync(brief, "utf8");
    expect(text).toContain("**Command** (exit 1)");
    expect(text).toContain("run_command: 1 failed");
    expect(text).toContain("edit src/login.ts");
    expect(text).toContain("Fixed the login check.");
  });
});

describe("Gemini CLI legacy sessions", () => {
  it("reads the older one-document-per-session JSON files too", async () => {
    const { geminiFixture } = await import("../../fakes/stores/jsonl-stores.js");
    const { writeJson } = await import("../../fakes/stores/common.js");
    const f = geminiFixture();
    const id = "legacy00-0000-4000-8000-000000000009";
    writeJson(path.join(f.opts.home!, ".gemini", "tmp", "beta", "chats", "session-2026-11-01T09-00-legacy00.json"), {
      sessionId: id,
      projectHash: "h2",
      startTime: "2026-11-01T09:00:00Z",
      lastUpdated: "2026-11-01T09:05:00Z",
      messages: [{ id: "m1", timestamp: "2026-11-01T09:00:00Z", type: "user", content: "An old Gemini task" }],
    });
    const { sessions } = await listSessions({ ...f.opts, runtime: "gemini" });
    const legacy = sessions.find((s) => s.id === id);
    expect(legacy?.title).toBe("An old Gemini task");
    expect(legacy?.cwd).toBe(f.other.cwd);
    const { path: brief } = await writeBrief({ ...f.opts, runtime: "gemini", sessionId: id, outputDir: path.join(f.root, "out") });
    expect(readFileSync(brief, "utf8")).toContain("An old Gemini task");
  });
});

describe("Hermes Agent home", () => {
  it("follows $HERMES_HOME, else a sticky active profile, else ~/.hermes", async () => {
    const { hermesHome } = await import("../../../src/agents/products/hermes/index.js");
    const b = makeBase("hermes-home");
    expect(hermesHome({ HERMES_HOME: "/custom/hermes" }, b.home)).toBe("/custom/hermes");
    expect(hermesHome({}, b.home)).toBe(path.join(b.home, ".hermes"));
    mkdirSync(path.join(b.home, ".hermes"), { recursive: true });
    const { writeFileSync } = await import("node:fs");
    writeFileSync(path.join(b.home, ".hermes", "active_profile"), "work\n");
    expect(hermesHome({}, b.home)).toBe(path.join(b.home, ".hermes", "profiles", "work"));
    writeFileSync(path.join(b.home, ".hermes", "active_profile"), "default\n");
    expect(hermesHome({}, b.home)).toBe(path.join(b.home, ".hermes"));
  });
});

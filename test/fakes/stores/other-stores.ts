// Fixture stores for the SQLite runtimes (OpenCode, Hermes, Cursor's Composer database), Cline's
// JSON task folders, OpenCode's legacy files, and the Grok Build, DeepSeek Harness and fx layouts.

import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import initSqlJs from "sql.js";
import { createRequire } from "node:module";
import { type Base, MAIN_PROMPT_TITLE, makeBase, type StoreFixture, T_MAIN, T_MAIN_LATER, T_OLD, T_SUB, uuid, writeJson, writeJsonl } from "./common.js";
import { PROMPT_MAIN, PROMPT_OTHER } from "./jsonl-stores.js";
import { capturedTables } from "../../support/agent-fixtures.js";

const require = createRequire(import.meta.url);

/** Builds a SQLite file with sql.js (the same engine the readers use; no native build). */
export async function writeSqlite(file: string, statements: Array<[string, unknown[]?]>): Promise<void> {
  const SQL = await initSqlJs({ locateFile: () => require.resolve("sql.js/dist/sql-wasm.wasm") });
  const db = new SQL.Database();
  for (const [sql, params] of statements) db.run(sql, params ?? []);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, Buffer.from(db.export()));
  db.close();
}

function fixture(b: Base, runtime: string, mainTitle: string, ids: { main: string; other: string }, extra: Partial<StoreFixture> = {}): StoreFixture {
  return {
    runtime,
    root: b.root,
    opts: b.opts,
    main: { id: ids.main, title: mainTitle, cwd: b.cwdA, firstPrompt: PROMPT_MAIN },
    other: { id: ids.other, title: PROMPT_OTHER, cwd: b.cwdB, firstPrompt: PROMPT_OTHER },
    ...extra,
  };
}

const ms = (iso: string): number => Date.parse(iso);

export async function opencodeFixture(): Promise<StoreFixture> {
  const b = makeBase("opencode");
  const data = path.join(b.home, ".local", "share", "opencode");
  const [main, other, sub, legacy] = ["ses_1aaaa0000001", "ses_2bbbb0000002", "ses_3cccc0000003", "ses_4dddd0000004"];
  const part = (id: string, msg: string, session: string, data: unknown): [string, unknown[]] => ["INSERT INTO part VALUES (?,?,?,?,?,?)", [id, msg, session, 0, 0, JSON.stringify(data)]];
  const message = (id: string, session: string, at: string, role: string): [string, unknown[]] => [
    "INSERT INTO message VALUES (?,?,?,?,?)",
    [id, session, ms(at), ms(at), JSON.stringify({ role, time: { created: ms(at) } })],
  ];
  const session = "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES (?,?,?,?,?,?,?,?,?)";
  await writeSqlite(path.join(data, "opencode.db"), [
    // The tables as the real OpenCode (1.18.33) made them, from its captured store.
    ...capturedTables("opencode", ".local/share/opencode/opencode.db", ["session", "message", "part"]).map((create): [string] => [create]),
    [session, [main, "p1", null, "s", b.cwdA, "Login bug hunt", "1.2.0", ms(T_MAIN), ms(T_MAIN_LATER)]],
    [session, [other, "p2", null, "s", b.cwdB, "New session - 2026-11-10T09:00:00.000Z", "1.2.0", ms(T_OLD), ms(T_OLD)]],
    [session, [sub, "p1", main, "s", b.cwdA, "Child session - 2026", "1.2.0", ms(T_SUB), ms(T_SUB)]],
    message("msg_01", main, T_MAIN, "user"),
    part("prt_01", "msg_01", main, { type: "text", text: PROMPT_MAIN }),
    message("msg_02", main, T_MAIN_LATER, "assistant"),
    part("prt_02", "msg_02", main, { type: "tool", tool: "bash", state: { status: "completed", input: { command: "npm test" }, metadata: { exit: 1 } } }),
    part("prt_03", "msg_02", main, { type: "tool", tool: "edit", state: { status: "completed", input: { filePath: "src/login.ts" } } }),
    part("prt_04", "msg_02", main, { type: "text", text: "Fixed the login check." }),
    message("msg_03", other, T_OLD, "user"),
    part("prt_05", "msg_03", other, { type: "text", text: PROMPT_OTHER }),
    message("msg_04", sub, T_SUB, "user"),
    part("prt_06", "msg_04", sub, { type: "text", text: "Search for login handlers" }),
  ]);
  // A session that exists only in the legacy file store (OpenCode ≤ 1.1).
  const storage = path.join(data, "storage");
  writeJson(path.join(storage, "session", "global", `${legacy}.json`), {
    id: legacy,
    projectID: "global",
    directory: b.cwdB,
    title: "Legacy refactor",
    time: { created: ms("2026-11-01T09:00:00Z"), updated: ms("2026-11-01T09:30:00Z") },
  });
  writeJson(path.join(storage, "message", legacy, "msg_a.json"), { id: "msg_a", sessionID: legacy, role: "user", time: { created: ms("2026-11-01T09:00:00Z") } });
  writeJson(path.join(storage, "part", "msg_a", "prt_a.json"), { id: "prt_a", messageID: "msg_a", type: "text", text: "Refactor the legacy module" });
  // The main session was also migrated: its legacy copy must not be listed twice.
  writeJson(path.join(storage, "session", "p1", `${main}.json`), { id: main, projectID: "p1", directory: b.cwdA, title: "Login bug hunt", time: { created: ms(T_MAIN), updated: ms(T_MAIN) } });
  return fixture(b, "opencode", "Login bug hunt", { main, other }, { subagent: { id: sub, parent: main }, nativeArgs: ["--session", main] });
}

export async function hermesFixture(): Promise<StoreFixture> {
  const b = makeBase("hermes");
  const db = path.join(b.home, ".hermes", "state.db");
  const [main, other, sub, compressed] = ["a20261120_100000", "b20261110_090000", "c20261120_100200", "d20261119_080000"];
  const s = (id: string, parent: string | null, cwd: string, title: string | null, started: string, last: string, end: string | null): [string, unknown[]] => [
    "INSERT INTO sessions VALUES (?,?,?,?,?,?,?,?,?,?)",
    [id, "cli", "m", ms(started) / 1000, null, end, parent, cwd, title, ms(last) / 1000],
  ];
  const m = (session: string, role: string, content: string | null, at: string, toolCalls: unknown = null): [string, unknown[]] => [
    "INSERT INTO messages (session_id, role, content, tool_calls, timestamp) VALUES (?,?,?,?,?)",
    [session, role, content, toolCalls ? JSON.stringify(toolCalls) : null, ms(at) / 1000],
  ];
  await writeSqlite(db, [
    ["CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, model TEXT, started_at REAL, ended_at REAL, end_reason TEXT, parent_session_id TEXT, cwd TEXT, title TEXT, last_activity_at REAL)"],
    ["CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, content TEXT, tool_calls TEXT, tool_call_id TEXT, tool_name TEXT, timestamp REAL)"],
    // A compressed session continues in `main`; reopening either reopens `main`.
    s(compressed, null, b.cwdA, "Login bug hunt (part 1)", "2026-11-19T08:00:00Z", "2026-11-19T09:00:00Z", "compression"),
    s(main, compressed, b.cwdA, "Login bug hunt", T_MAIN, T_MAIN_LATER, null),
    s(other, null, b.cwdB, null, T_OLD, T_OLD, null),
    s(sub, main, b.cwdA, "delegate: search", T_SUB, T_SUB, null),
    m(main, "user", PROMPT_MAIN, T_MAIN),
    m(main, "assistant", null, T_MAIN, [{ id: "c1", type: "function", function: { name: "terminal", arguments: JSON.stringify({ command: "npm test" }) } }]),
    m(main, "tool", "Error: 1 test failed", T_MAIN),
    m(main, "assistant", "Fixed the login check.", T_MAIN_LATER, [{ id: "c2", type: "function", function: { name: "patch", arguments: JSON.stringify({ path: "src/login.ts" }) } }]),
    m(other, "user", PROMPT_OTHER, T_OLD),
    m(sub, "user", "Search for login handlers", T_SUB),
  ]);
  return fixture(b, "hermes", "Login bug hunt", { main, other }, { subagent: { id: sub, parent: main }, nativeArgs: ["--resume", main] });
}

export function clineFixture(): StoreFixture {
  const b = makeBase("cline");
  const data = path.join(b.home, ".cline", "data");
  const [main, other, historyOnly, both] = ["1763632800000_ab12c", "1762765200000", "1762000000000", "1763000000000"];
  // The CLI session (Cline 3.x): metadata beside its messages.
  writeJson(path.join(data, "sessions", main, `${main}.json`), {
    version: 1,
    session_id: main,
    source: "cli",
    started_at: T_MAIN,
    cwd: b.cwdA,
    prompt: PROMPT_MAIN,
    metadata: { title: "Login bug hunt" },
  });
  writeJson(path.join(data, "sessions", main, `${main}.messages.json`), {
    sessionId: main,
    messages: [
      { role: "user", content: [{ type: "text", text: PROMPT_MAIN }] },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "execute_command", input: { command: "npm test" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", is_error: true, content: "1 test failed" }] },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "t2", name: "replace_in_file", input: { path: "src/login.ts" } },
          { type: "text", text: "Fixed the login check." },
        ],
      },
    ],
  });
  utimesSync(path.join(data, "sessions", main, `${main}.messages.json`), new Date(T_MAIN_LATER), new Date(T_MAIN_LATER));
  // A task the CLI also holds as a session: listed once, as the session.
  writeJson(path.join(data, "sessions", `${both}_zz9`, `${both}_zz9.json`), { session_id: `${both}_zz9`, cwd: b.cwdB, prompt: "a task in both stores", started_at: "2026-11-05T09:00:00Z" });
  writeJson(path.join(data, "sessions", `${both}_zz9`, `${both}_zz9.messages.json`), { messages: [] });
  utimesSync(path.join(data, "sessions", `${both}_zz9`, `${both}_zz9.messages.json`), new Date("2026-11-05T09:00:00Z"), new Date("2026-11-05T09:00:00Z"));
  // The older task history (the extension's layout).
  const say = (ts: string, s: string, text: string) => ({ ts: ms(ts), type: "say", say: s, text });
  const ask = (ts: string, a: string, text: string) => ({ ts: ms(ts), type: "ask", ask: a, text });
  writeJson(path.join(data, "tasks", other, "ui_messages.json"), [
    say(T_OLD, "task", PROMPT_OTHER),
    ask(T_OLD, "command", "git log --oneline"),
    say(T_OLD, "tool", JSON.stringify({ tool: "newFileCreated", path: "NOTES.md" })),
    say(T_OLD, "completion_result", "Draft ready."),
  ]);
  writeJson(path.join(data, "tasks", both, "ui_messages.json"), [say("2026-11-05T09:00:00Z", "task", "a task in both stores")]);
  writeJson(path.join(data, "state", "taskHistory.json"), [
    { id: other, ts: ms(T_OLD), task: PROMPT_OTHER, cwdOnTaskInitialization: b.cwdB },
    { id: both, ts: ms("2026-11-05T09:00:00Z"), task: "a task in both stores", cwdOnTaskInitialization: b.cwdB },
    { id: historyOnly, ts: ms("2026-11-01T12:00:00Z"), task: "An old extension task", cwdOnTaskInitialization: b.cwdB },
  ]);
  return fixture(b, "cline", "Login bug hunt", { main, other }, { nativeArgs: ["--tui", "--auto-approve", "false", "--id", main] });
}

/** Grok Build: `<url-encoded cwd>/<id>/summary.json` + `chat_history.jsonl`. */
function grokLikeFixture(): StoreFixture {
  const b = makeBase("grok");
  const root = path.join(b.home, ".grok", "sessions");
  const [main, other, sub] = [uuid(1), uuid(2), uuid(3)];
  const dir = (cwd: string, id: string) => path.join(root, encodeURIComponent(cwd), id);
  const history = (prompt: string) => [
    { type: "system", content: "You are Grok." },
    { type: "user", content: "<environment>injected</environment>", synthetic_reason: "context" },
    { type: "user", content: [{ type: "text", text: prompt }] },
    { type: "reasoning", summary: [{ text: "thinking about it" }] },
    { type: "assistant", content: "", tool_calls: [{ id: "t1", name: "run_terminal_cmd", arguments: JSON.stringify({ command: "npm test" }) }] },
    { type: "tool_result", tool_call_id: "t1", content: "1 failed" },
    { type: "assistant", content: "Fixed the login check.", tool_calls: [{ id: "t2", name: "search_replace", arguments: JSON.stringify({ file_path: "src/login.ts" }) }] },
  ];
  writeJsonl(path.join(dir(b.cwdA, main), "chat_history.jsonl"), history(PROMPT_MAIN), { torn: true });
  writeJson(path.join(dir(b.cwdA, main), "summary.json"), {
    info: { id: main, cwd: b.cwdA },
    generated_title: "Login bug hunt",
    created_at: T_MAIN,
    updated_at: T_MAIN_LATER,
    session_kind: "build",
    head_branch: "main",
  });
  // No summary.json yet (a session still in its first turn): title from the first real prompt, cwd from the folder name.
  writeJsonl(path.join(dir(b.cwdB, other), "chat_history.jsonl"), history(PROMPT_OTHER));
  utimesSync(path.join(dir(b.cwdB, other), "chat_history.jsonl"), new Date(T_OLD), new Date(T_OLD));
  writeJsonl(path.join(dir(b.cwdA, sub), "chat_history.jsonl"), history("Search for login handlers"));
  writeJson(path.join(dir(b.cwdA, sub), "summary.json"), { info: { id: sub, cwd: b.cwdA }, session_kind: "subagent", parent_session_id: main, updated_at: T_SUB });
  return fixture(b, "grok", "Login bug hunt", { main, other }, { subagent: { id: sub, parent: main }, nativeArgs: ["--permission-mode", "default", "--resume", main] });
}

export const grokFixture = (): StoreFixture => grokLikeFixture();
/** DeepSeek Harness: `sessions/--<project key>--/<id>/session.jsonl` with `user/message` events. */
export function dshFixture(): StoreFixture {
  const b = makeBase("dsh");
  const root = path.join(b.home, ".dsh", "sessions");
  const key = (cwd: string) => `--${cwd.replace(/^\//, "").replace(/[/\\:]+/g, "-")}--`;
  const [main, other, sub, fork] = [uuid(1), uuid(2), uuid(3), uuid(4)];
  const ev = (type: string, at: string, data: unknown, seq: number) => ({ type, seq, time: ms(at), data });
  const lines = (id: string, cwd: string, at: string, prompt: string, header: object = {}) => [
    { type: "session", id, cwd, createdAt: ms(at), version: 1, ...header },
    ev("user/message", at, { content: [{ type: "text", text: prompt }] }, 1),
    { type: "text-chunks", seq0: 2, time0: ms(at), data: { texts: ["Look", "ing"], index: 0, turn: 1, step: 1 } },
    ev("assistant/message", at, { content: [{ type: "tool-call", name: "bash", input: { command: "npm test" } }] }, 4),
    ev("tool/result", at, { isError: true, content: "1 failed" }, 5),
    ev("assistant/message", id === main ? T_MAIN_LATER : at, { content: [{ type: "text", text: "Fixed the login check." }] }, 6),
  ];
  writeJsonl(path.join(root, key(b.cwdA), main, "session.jsonl"), lines(main, b.cwdA, T_MAIN, PROMPT_MAIN), { torn: true });
  writeJsonl(path.join(root, key(b.cwdB), other, "session.jsonl"), lines(other, b.cwdB, T_OLD, PROMPT_OTHER).slice(0, 2));
  writeJsonl(path.join(root, key(b.cwdA), sub, "session.jsonl"), lines(sub, b.cwdA, T_SUB, "Search for login handlers", { parentSessionId: main }));
  writeJsonl(path.join(root, key(b.cwdA), fork, "session.jsonl"), lines(fork, b.cwdA, "2026-11-15T09:00:00.000Z", "a forked try", { parentSessionId: main, forkedFrom: main }));
  return fixture(b, "dsh", MAIN_PROMPT_TITLE, { main, other }, { subagent: { id: sub, parent: main } });
}
/** fx: `<id>/events.jsonl` envelopes plus the `session.json` manifest. */
export function fxFixture(): StoreFixture {
  const b = makeBase("fx");
  const root = path.join(b.home, ".fx", "sessions");
  const [main, other] = ["fx-main-0001", "fx-other-0002"];
  const frame = (seq: number, at: string, kind: string, payload: unknown) => ({ schema_version: 1, log_generation: "g1", seq, event_id: `e${seq}`, timestamp_ms: ms(at), kind, payload });
  const turn = (prompt: string, at: string, seq: number) =>
    frame(seq, at, "history_turn_committed", {
      conversation_language: "en",
      total_input_tokens: 10,
      total_output_tokens: 5,
      work_id: "w",
      turn: {
        kind: "assistant",
        user: { text: prompt, images: [] },
        assistant: "Fixed the login check.",
        execution: {
          schema_version: 1,
          tool_steps: [
            {
              assistant: null,
              tool_calls: [{ id: "c1", name: "run_command", arguments_json: JSON.stringify({ command: "npm test" }), provider_result: null }],
              tool_results: [
                {
                  tool_call_id: "c1",
                  tool_name: "run_command",
                  status: "failure",
                  output: { encoding: "base64", data: Buffer.from("1 failed").toString("base64") },
                  command_process_presentation: { kind: "exit_code", value: 1 },
                },
              ],
            },
          ],
          files: [{ path: "src/login.ts", tool_call_id: "c2", tool_name: "edit_file", action: "edit", status: "success" }],
          turn_summary: null,
        },
      },
    });
  const session = (id: string, cwd: string, at: string, prompt: string, later: string) => {
    writeJsonl(
      path.join(root, id, "events.jsonl"),
      [frame(1, at, "session_started", { id, created_at_ms: ms(at), origin_workspace_root: cwd, workspace_root: cwd, conversation_language: "en" }), turn(prompt, later, 2)],
      { torn: id === main },
    );
    writeJson(path.join(root, id, "session.json"), {
      schema_version: 3,
      storage_format: "jsonl",
      id,
      created_at_ms: ms(at),
      updated_at_ms: ms(later),
      origin_workspace_root: cwd,
      workspace_root: cwd,
      history_len: 1,
    });
  };
  session(main, b.cwdA, T_MAIN, PROMPT_MAIN, T_MAIN_LATER);
  session(other, b.cwdB, T_OLD, PROMPT_OTHER, T_OLD);
  return fixture(b, "fx", MAIN_PROMPT_TITLE, { main, other }, { nativeArgs: ["--resume", main] });
}

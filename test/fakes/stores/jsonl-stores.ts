// Fixture stores for the transcript-per-file runtimes, written in each runtime's format as
// docs/session-stores.md describes it. Each has two top-level sessions in different directories
// (one titled by the runtime's title record, one by its first prompt), a subagent where the runtime
// has them, a torn last line, and a planted secret.

import path from "node:path";
import { mkdirSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { type Base, MAIN_PROMPT_TITLE, makeBase, PLANTED_SECRET, type StoreFixture, T_MAIN, T_MAIN_LATER, T_OLD, T_SUB, uuid, writeJson, writeJsonl } from "./common.js";

const enc = (p: string): string => p.replace(/[^A-Za-z0-9]/g, "-");
const PROMPT_MAIN = `Fix the login bug; the token is ${PLANTED_SECRET}`;
const PROMPT_OTHER = "Write the release notes for version 2";

function fixture(b: Base, runtime: string, main: { id: string; title: string }, other: { id: string }, extra: Partial<StoreFixture> = {}): StoreFixture {
  return {
    runtime,
    root: b.root,
    opts: b.opts,
    main: { id: main.id, title: main.title, cwd: b.cwdA, firstPrompt: PROMPT_MAIN },
    other: { id: other.id, title: PROMPT_OTHER, cwd: b.cwdB, firstPrompt: PROMPT_OTHER },
    ...extra,
  };
}

export function claudeFixture(): StoreFixture {
  const b = makeBase("claude");
  const projects = path.join(b.home, ".claude", "projects");
  const [main, other, sub] = [uuid(1), uuid(2), uuid(3)];
  const line = (type: string, id: string, cwd: string, at: string, message: unknown) => ({ type, sessionId: id, cwd, gitBranch: "main", timestamp: at, uuid: `${at}-${type}`, message });
  writeJsonl(
    path.join(projects, enc(b.cwdA), `${main}.jsonl`),
    [
      { type: "queue-operation", operation: "enqueue", timestamp: T_MAIN },
      line("user", main, b.cwdA, T_MAIN, { role: "user", content: "<command-name>/clear</command-name>" }),
      line("user", main, b.cwdA, T_MAIN, { role: "user", content: PROMPT_MAIN }),
      line("assistant", main, b.cwdA, T_MAIN, {
        role: "assistant",
        content: [
          { type: "text", text: "Looking at it." },
          { type: "tool_use", id: "t1", name: "Bash", input: { command: "npm test" } },
        ],
      }),
      line("user", main, b.cwdA, T_MAIN, { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", is_error: true, content: "1 test failed" }] }),
      line("assistant", main, b.cwdA, T_MAIN_LATER, {
        role: "assistant",
        content: [
          { type: "tool_use", id: "t2", name: "Edit", input: { file_path: `${b.cwdA}/src/login.ts` } },
          { type: "text", text: "Fixed the login check." },
        ],
      }),
      { type: "custom-title", customTitle: "Login bug hunt", sessionId: main },
    ],
    { torn: true },
  );
  writeJsonl(path.join(projects, enc(b.cwdA), main, "subagents", `agent-${sub}.jsonl`), [
    { ...line("user", main, b.cwdA, T_SUB, { role: "user", content: "Search the codebase for login handlers" }), isSidechain: true },
  ]);
  writeJsonl(path.join(projects, enc(b.cwdB), `${other}.jsonl`), [
    line("user", other, b.cwdB, T_OLD, { role: "user", content: PROMPT_OTHER }),
    line("assistant", other, b.cwdB, T_OLD, { role: "assistant", content: [{ type: "text", text: "Draft ready." }] }),
  ]);
  return fixture(b, "claude", { id: main, title: "Login bug hunt" }, { id: other }, { subagent: { id: `agent-${sub}`, parent: main }, nativeArgs: ["--resume", main] });
}

export function codexFixture(): StoreFixture {
  const b = makeBase("codex");
  const home = path.join(b.home, ".codex");
  const [main, other, sub] = [uuid(1), uuid(2), uuid(3)];
  const ev = (at: string, type: string, payload: unknown) => ({ timestamp: at, type, payload });
  const meta = (id: string, cwd: string, at: string, source: unknown = "cli") => ev(at, "session_meta", { id, cwd, cli_version: "0.63.0", source, git: { branch: "main" } });
  // The main thread spans two rollout files (resumed on another day); it must be listed once.
  writeJsonl(path.join(home, "sessions", "2026", "11", "19", `rollout-2026-11-19T10-00-00-${main}.jsonl`), [
    meta(main, b.cwdA, "2026-11-19T10:00:00.000Z"),
    ev("2026-11-19T10:00:01.000Z", "event_msg", { type: "user_message", message: "an earlier prompt" }),
  ]);
  writeJsonl(
    path.join(home, "sessions", "2026", "11", "20", `rollout-2026-11-20T10-00-00-${main}.jsonl`),
    [
      meta(main, b.cwdA, T_MAIN),
      ev(T_MAIN, "response_item", { type: "message", role: "user", content: [{ type: "input_text", text: "<environment_context>noise</environment_context>" }] }),
      ev(T_MAIN, "event_msg", { type: "user_message", message: PROMPT_MAIN }),
      ev(T_MAIN, "event_msg", { type: "exec_command_end", command: ["bash", "-lc", "npm test"], exit_code: 1 }),
      ev(T_MAIN, "response_item", { type: "custom_tool_call", name: "apply_patch", input: "*** Begin Patch\n*** Update File: src/login.ts\n*** End Patch" }),
      ev(T_MAIN_LATER, "event_msg", { type: "agent_message", message: "Fixed the login check." }),
    ],
    { torn: true },
  );
  writeJsonl(path.join(home, "sessions", "2026", "11", "20", `rollout-2026-11-20T10-02-00-${sub}.jsonl`), [
    meta(sub, b.cwdA, T_SUB, { subagent: { thread_spawn: { parent_thread_id: main } } }),
    ev(T_SUB, "event_msg", { type: "user_message", message: "review the patch" }),
  ]);
  writeJsonl(path.join(home, "sessions", "2026", "11", "10", `rollout-2026-11-10T09-00-00-${other}.jsonl`), [
    meta(other, b.cwdB, T_OLD),
    ev(T_OLD, "event_msg", { type: "user_message", message: PROMPT_OTHER }),
  ]);
  writeJsonl(path.join(home, "session_index.jsonl"), [{ id: main, thread_name: "Login bug hunt", updated_at: T_MAIN }]);
  return fixture(b, "codex", { id: main, title: "Login bug hunt" }, { id: other }, { subagent: { id: sub, parent: main }, nativeArgs: ["resume", main] });
}

function piLines(id: string, cwd: string, at: string, prompt: string, name?: string, parentSession?: string): unknown[] {
  return [
    { type: "session", version: 3, id, timestamp: at, cwd, ...(parentSession ? { parentSession } : {}) },
    { type: "message", id: "e1", parentId: null, timestamp: at, message: { role: "user", content: prompt, timestamp: Date.parse(at) } },
    { type: "message", id: "e2", parentId: "e1", timestamp: at, message: { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "bash", arguments: { command: "npm test" } }] } },
    { type: "message", id: "e3", parentId: "e2", timestamp: at, message: { role: "toolResult", toolCallId: "c1", toolName: "bash", content: [{ type: "text", text: "1 failed" }], isError: true } },
    {
      type: "message",
      id: "e4",
      parentId: "e3",
      timestamp: at,
      message: {
        role: "assistant",
        content: [
          { type: "toolCall", id: "c2", name: "edit", arguments: { path: "src/login.ts" } },
          { type: "text", text: "Fixed the login check." },
        ],
      },
    },
    ...(name ? [{ type: "session_info", id: "e5", parentId: "e4", timestamp: at, name }] : []),
  ];
}

function piLikeFixture(runtime: "pi" | "prime"): StoreFixture {
  const b = makeBase(runtime);
  const agentDir = runtime === "pi" ? path.join(b.home, ".pi", "agent") : path.join(b.home, ".prime", "agent");
  const sessions = path.join(agentDir, "sessions");
  const [main, other, sub] = [uuid(1), uuid(2), uuid(3)];
  const mainFile = path.join(sessions, `--${b.cwdA.replace(/\//g, "-")}--`, `2026-11-20T10-00-00-000Z_${main}.jsonl`);
  writeJsonl(mainFile, piLines(main, b.cwdA, T_MAIN, PROMPT_MAIN, "Login bug hunt"), { torn: true });
  writeJsonl(path.join(sessions, `--${b.cwdB.replace(/\//g, "-")}--`, `2026-11-10T09-00-00-000Z_${other}.jsonl`), piLines(other, b.cwdB, T_OLD, PROMPT_OTHER));
  let extra: Partial<StoreFixture> = { nativeArgs: ["--session", mainFile] };
  if (runtime === "prime") {
    writeJsonl(path.join(agentDir, "session-artifacts", main, `sub-${sub.slice(0, 8)}`, "transcript.jsonl"), piLines(sub, b.cwdA, T_SUB, "Search for login handlers"));
    extra = { ...extra, nativeArgs: ["--resume", mainFile], subagent: { id: sub, parent: main } };
  }
  return fixture(b, runtime, { id: main, title: "Login bug hunt" }, { id: other }, extra);
}

export const piFixture = (): StoreFixture => piLikeFixture("pi");
export const primeFixture = (): StoreFixture => piLikeFixture("prime");

export function droidFixture(): StoreFixture {
  const b = makeBase("droid");
  const sessions = path.join(b.home, ".factory", "sessions");
  const [main, other] = [uuid(1), uuid(2)];
  const msg = (at: string, role: string, content: unknown) => ({ type: "message", id: `${at}${role}`, timestamp: at, message: { role, content } });
  writeJsonl(
    path.join(sessions, enc(b.cwdA), `${main}.jsonl`),
    [
      { type: "session_start", id: main, title: "Login bug hunt", sessionTitle: "Login bug hunt", owner: "me", version: 2, cwd: b.cwdA },
      msg(T_MAIN, "user", [{ type: "text", text: PROMPT_MAIN }]),
      msg(T_MAIN, "assistant", [{ type: "tool_use", id: "t1", name: "Execute", input: { command: "npm test" } }]),
      msg(T_MAIN_LATER, "assistant", [
        { type: "tool_use", id: "t2", name: "Edit", input: { file_path: "src/login.ts" } },
        { type: "text", text: "Fixed the login check." },
      ]),
    ],
    { torn: true },
  );
  writeJsonl(path.join(sessions, enc(b.cwdB), `${other}.jsonl`), [
    { type: "session_start", id: other, owner: "me", version: 2, cwd: b.cwdB },
    msg(T_OLD, "user", [{ type: "text", text: PROMPT_OTHER }]),
  ]);
  return fixture(b, "droid", { id: main, title: "Login bug hunt" }, { id: other }, { nativeArgs: ["--resume", main] });
}

export function copilotFixture(): StoreFixture {
  const b = makeBase("copilot");
  const state = path.join(b.home, ".copilot", "session-state");
  const [main, other] = [uuid(1), uuid(2)];
  const ev = (at: string, type: string, data: unknown) => ({ type, id: `${type}-${at}`, timestamp: at, parentId: null, data });
  writeJsonl(
    path.join(state, main, "events.jsonl"),
    [
      ev(T_MAIN, "session.start", { sessionId: main, version: 1, producer: "copilot-agent", copilotVersion: "0.0.407", startTime: T_MAIN, context: { cwd: b.cwdA, branch: "main" } }),
      ev(T_MAIN, "user.message", { content: PROMPT_MAIN, attachments: [] }),
      ev(T_MAIN, "tool.execution_start", { toolCallId: "c1", toolName: "bash", arguments: { command: "npm test" } }),
      ev(T_MAIN, "tool.execution_complete", { toolCallId: "c1", success: false, result: { content: "1 failed" } }),
      ev(T_MAIN_LATER, "assistant.message", { messageId: "m1", content: "Fixed the login check.", toolRequests: [] }),
    ],
    { torn: true },
  );
  writeFileSync(path.join(state, main, "workspace.yaml"), `id: ${main}\ncwd: ${b.cwdA}\nbranch: main\nsummary: Login bug hunt\ncreated_at: ${T_MAIN}\nupdated_at: ${T_MAIN_LATER}\n`);
  // An older session in the legacy single-file layout.
  writeJsonl(path.join(state, `${other}.jsonl`), [
    ev(T_OLD, "session.start", { sessionId: other, version: 1, startTime: T_OLD, context: { cwd: b.cwdB } }),
    ev(T_OLD, "user.message", { content: PROMPT_OTHER }),
  ]);
  return fixture(b, "copilot", { id: main, title: "Login bug hunt" }, { id: other }, { nativeArgs: [`--resume=${main}`] });
}

export function openclawFixture(): StoreFixture {
  const b = makeBase("openclaw");
  const dir = path.join(b.home, ".openclaw", "agents", "main", "sessions");
  const [main, other, sub] = [uuid(1), uuid(2), uuid(3)];
  writeJsonl(path.join(dir, `${main}.jsonl`), piLines(main, b.cwdA, T_MAIN, PROMPT_MAIN), { torn: true });
  writeJsonl(path.join(dir, `${other}.jsonl`), piLines(other, b.cwdB, T_OLD, PROMPT_OTHER));
  writeJsonl(path.join(dir, `${sub}.jsonl`), piLines(sub, b.cwdA, T_SUB, "Search for login handlers"));
  writeJson(path.join(dir, "sessions.json"), {
    "agent:main:main": { sessionId: main, updatedAt: Date.parse(T_MAIN_LATER), label: "Login bug hunt" },
    "telegram:dm:42": { sessionId: other, updatedAt: Date.parse(T_OLD) },
    [`agent:main:subagent:${sub}`]: { sessionId: sub, updatedAt: Date.parse(T_SUB), spawnedBy: "agent:main:main" },
  });
  return fixture(b, "openclaw", { id: main, title: "Login bug hunt" }, { id: other }, { subagent: { id: sub, parent: main }, nativeArgs: ["tui", "--session", "agent:main:main"] });
}

export function cursorFixture(): StoreFixture {
  const b = makeBase("cursor");
  const projects = path.join(b.home, ".cursor", "projects");
  const [main, other, sub] = [uuid(1), uuid(2), uuid(3)];
  const t = (role: string, at: string, content: unknown) => ({ role, timestamp: at, cwd: role === "user" ? undefined : undefined, message: { content } });
  const pa = path.join(projects, b.cwdA.slice(1).replace(/\//g, "-"), "agent-transcripts");
  // Current layout: `<id>/<id>.jsonl`, prompts wrapped in <user_query>; the older flat `<id>.jsonl` for the other.
  writeJsonl(
    path.join(pa, main, `${main}.jsonl`),
    [
      t("user", T_MAIN, [{ type: "text", text: `<user_query>\n${PROMPT_MAIN}\n</user_query>` }]),
      t("assistant", T_MAIN, [{ type: "tool_use", name: "Shell", input: { command: "npm test" } }]),
      t("assistant", T_MAIN_LATER, [
        { type: "tool_use", name: "StrReplace", input: { path: "src/login.ts" } },
        { type: "text", text: "Fixed the login check." },
      ]),
      { type: "turn_ended" },
    ],
    { torn: true },
  );
  writeJsonl(path.join(pa, main, "subagents", `${sub}.jsonl`), [t("user", T_SUB, "Search for login handlers")]);
  writeJsonl(path.join(projects, b.cwdB.slice(1).replace(/\//g, "-"), "agent-transcripts", `${other}.jsonl`), [t("user", T_OLD, PROMPT_OTHER)]);
  // cursor-agent started the main chat, so its chat store exists for that directory.
  mkdirSync(path.join(b.home, ".cursor", "chats", createHash("md5").update(b.cwdA).digest("hex"), main), { recursive: true });
  return fixture(b, "cursor", { id: main, title: MAIN_PROMPT_TITLE }, { id: other }, { subagent: { id: sub, parent: main }, nativeArgs: ["--resume", main] });
}

export function geminiFixture(): StoreFixture {
  const b = makeBase("gemini");
  const tmp = path.join(b.home, ".gemini", "tmp");
  const [main, other] = [uuid(1), uuid(2)];
  const proj = (cwd: string, slug: string) => {
    mkdirSync(path.join(tmp, slug, "chats"), { recursive: true });
    writeFileSync(path.join(tmp, slug, ".project_root"), cwd);
    return path.join(tmp, slug, "chats");
  };
  writeJsonl(
    path.join(proj(b.cwdA, "alpha"), `session-2026-11-20T10-00-${main.slice(0, 8)}.jsonl`),
    [
      { sessionId: main, projectHash: "h", startTime: T_MAIN, lastUpdated: T_MAIN_LATER },
      { id: "m1", timestamp: T_MAIN, type: "user", content: PROMPT_MAIN },
      { id: "m2", timestamp: T_MAIN, type: "gemini", content: "draft", toolCalls: [{ name: "run_shell_command", args: { command: "npm test" }, status: "error", result: "1 failed" }] },
      { id: "m2", timestamp: T_MAIN_LATER, type: "gemini", content: "Fixed the login check.", toolCalls: [{ name: "replace", args: { file_path: "src/login.ts" }, status: "success" }] },
      { id: "m3", timestamp: T_MAIN_LATER, type: "user", content: "this prompt was rewound" },
      { $rewindTo: "m3" },
    ],
    { torn: true },
  );
  writeJsonl(path.join(proj(b.cwdB, "beta"), `session-2026-11-10T09-00-${other.slice(0, 8)}.jsonl`), [
    { sessionId: other, projectHash: "h2", startTime: T_OLD, lastUpdated: T_OLD },
    { id: "m1", timestamp: T_OLD, type: "user", content: PROMPT_OTHER },
  ]);
  return fixture(b, "gemini", { id: main, title: MAIN_PROMPT_TITLE }, { id: other });
}

export function qwenFixture(): StoreFixture {
  const b = makeBase("qwen");
  const projects = path.join(b.home, ".qwen", "projects");
  const [main, other] = [uuid(1), uuid(2)];
  const r = (id: string, cwd: string, at: string, type: string, message: unknown, more: object = {}) => ({
    uuid: `${at}${type}`,
    parentUuid: null,
    sessionId: id,
    timestamp: at,
    type,
    cwd,
    version: "0.5.0",
    gitBranch: "main",
    message,
    ...more,
  });
  writeJsonl(
    path.join(projects, enc(b.cwdA), "chats", `${main}.jsonl`),
    [
      r(main, b.cwdA, T_MAIN, "user", { role: "user", parts: [{ text: PROMPT_MAIN }] }),
      // As 0.24.4 writes them: each call's outcome in a later tool_result record.
      r(main, b.cwdA, T_MAIN, "assistant", { role: "model", parts: [{ functionCall: { id: "call_1", name: "run_shell_command", args: { command: "npm test" } } }] }),
      r(
        main,
        b.cwdA,
        T_MAIN,
        "tool_result",
        { role: "user", parts: [{ functionResponse: { id: "call_1", name: "run_shell_command", response: { output: "Exit Code: 0" } } }] },
        { toolCallResult: { callId: "call_1", status: "success" } },
      ),
      r(main, b.cwdA, T_MAIN, "assistant", { role: "model", parts: [{ functionCall: { id: "call_2", name: "run_shell_command", args: { command: "rm -rf /srv/data" } } }] }),
      r(
        main,
        b.cwdA,
        T_MAIN,
        "tool_result",
        { role: "user", parts: [{ functionResponse: { id: "call_2", name: "run_shell_command", response: { error: 'Tool "run_shell_command" was canceled by the user.' } } }] },
        { toolCallResult: { callId: "call_2", status: "cancelled", executionStatus: "not_started" } },
      ),
      r(main, b.cwdA, T_MAIN_LATER, "assistant", { role: "model", parts: [{ text: "Fixed the login check." }, { functionCall: { id: "call_3", name: "edit", args: { file_path: "src/login.ts" } } }] }),
      r(
        main,
        b.cwdA,
        T_MAIN_LATER,
        "tool_result",
        { role: "user", parts: [{ functionResponse: { id: "call_3", name: "edit", response: { output: "ok" } } }] },
        { toolCallResult: { callId: "call_3", status: "success" } },
      ),
      r(main, b.cwdA, T_MAIN_LATER, "system", undefined, { subtype: "custom_title", systemPayload: { title: "Login bug hunt" } }),
    ],
    { torn: true },
  );
  writeJsonl(path.join(projects, enc(b.cwdB), "chats", `${other}.jsonl`), [r(other, b.cwdB, T_OLD, "user", { role: "user", parts: [{ text: PROMPT_OTHER }] })]);
  return fixture(b, "qwen", { id: main, title: "Login bug hunt" }, { id: other });
}

export function demoFixture(): StoreFixture {
  const b = makeBase("demo");
  const dir = path.join(b.home, ".baton", "demo-agent", "sessions");
  const [main, other] = [uuid(1), uuid(2)];
  writeJsonl(
    path.join(dir, `${main}.jsonl`),
    [
      { type: "meta", sessionId: main, cwd: b.cwdA, createdAt: T_MAIN, title: null },
      { type: "prompt", text: PROMPT_MAIN, at: T_MAIN },
      { type: "tool", title: "Run npm test", status: "failed", at: T_MAIN },
      { type: "reply", text: "Fixed the login check.", at: T_MAIN_LATER },
    ],
    { torn: true },
  );
  writeJsonl(path.join(dir, `${other}.jsonl`), [
    { type: "meta", sessionId: other, cwd: b.cwdB, createdAt: T_OLD, title: null },
    { type: "prompt", text: PROMPT_OTHER, at: T_OLD },
  ]);
  return fixture(b, "demo", { id: main, title: MAIN_PROMPT_TITLE }, { id: other });
}

export { PROMPT_MAIN, PROMPT_OTHER };

// Cline: `${CLINE_DIR:-~/.cline}/data`. The CLI (3.x) keeps its sessions in `sessions/<id>/<id>.json`
// ({session_id, cwd, prompt, started_at, metadata: {title}}) beside `<id>.messages.json`
// ({messages: [{role, content}]}). The older task history is the extension's layout:
// `tasks/<id>/ui_messages.json` (ClineMessage[]: {ts, type: say | ask, say?, ask?, text}) and
// `state/taskHistory.json` (HistoryItem[]: {id, ts, task, cwdOnTaskInitialization}); the CLI cannot
// reopen those, so they continue from a brief. A task in both is listed once, as the CLI session.

import { promises as fs } from "node:fs";
import path from "node:path";
import type { ReaderContext, SessionStep, StoreReading, StoredSession } from "../../stores/types.js";
import { entries, exists, readHeadTail, readJsonFile } from "../../stores/files.js";
import { arr, brief, clip, contentText, iso, num, obj, str, titleOf } from "../../stores/text.js";

const FILE_TOOLS = new Set(["editedExistingFile", "newFileCreated", "fileDeleted"]);

interface HistoryItem {
  id: string;
  ts?: number;
  task?: string;
  cwd?: string;
}

async function readHistory(data: string): Promise<Map<string, HistoryItem>> {
  const out = new Map<string, HistoryItem>();
  for (const file of [path.join(data, "state", "taskHistory.json"), path.join(data, "globalState.json")]) {
    let items: unknown[] = [];
    try {
      const parsed: unknown = JSON.parse(await fs.readFile(file, "utf8"));
      items = Array.isArray(parsed) ? parsed : arr(obj(parsed)?.taskHistory);
    } catch {
      continue;
    }
    for (const raw of items) {
      const h = obj(raw);
      const id = str(h?.id);
      if (h && id && !out.has(id)) out.set(id, { id, ts: num(h.ts), task: str(h.task), cwd: str(h.cwdOnTaskInitialization) ?? str(h.cwd) });
    }
  }
  return out;
}

function parseTool(text: string): Record<string, unknown> {
  try {
    return obj(JSON.parse(text)) ?? {};
  } catch {
    return {};
  }
}

export function clineMessageSteps(m: Record<string, unknown>): SessionStep[] {
  const text = str(m.text) ?? "";
  const at = iso(m.ts);
  const kind = m.type === "say" ? m.say : m.ask;
  switch (kind) {
    case "task":
    case "user_feedback":
      return text ? [{ kind: "prompt", text: clip(text), at }] : [];
    case "text":
    case "completion_result":
      return m.type === "say" && text ? [{ kind: "reply", text: clip(text), at }] : [];
    case "command":
      return m.type === "ask" && text ? [{ kind: "command", text: clip(text), at }] : [];
    case "tool": {
      const t = parseTool(text);
      const file = str(t.path) ?? "";
      return m.type === "say" && FILE_TOOLS.has(str(t.tool) ?? "") ? [{ kind: "file_change", text: `${t.tool} ${file}`, path: file, at }] : [];
    }
    case "use_mcp_server": {
      const t = parseTool(text);
      return [{ kind: "mcp", text: clip(`${str(t.serverName) ?? "mcp"}.${str(t.toolName) ?? str(t.uri) ?? ""} ${brief(t.arguments ?? "")}`), at }];
    }
    case "error":
    case "api_req_failed":
    case "mistake_limit_reached":
      return [{ kind: "tool_failure", text: clip(text || String(kind)), at }];
    default:
      return [];
  }
}

/** The first task text from the head of ui_messages.json, without parsing the whole array. */
async function headTask(file: string): Promise<{ title?: string; mtime: Date; size: number }> {
  const ht = await readHeadTail(file);
  const m = /"say"\s*:\s*"task"[^}]*?"text"\s*:\s*("(?:[^"\\]|\\.)*")|"text"\s*:\s*("(?:[^"\\]|\\.)*")[^}]*?"say"\s*:\s*"task"/.exec(ht.head.join("\n"));
  let title: string | undefined;
  try {
    title = m ? (JSON.parse(m[1] ?? m[2]) as string) : undefined;
  } catch {
    title = undefined;
  }
  return { title, mtime: ht.mtime, size: ht.size };
}

/** Steps of one CLI-session message (Anthropic-style content blocks). */
export function clineSessionSteps(m: Record<string, unknown>, at?: string): SessionStep[] {
  const steps: SessionStep[] = [];
  const said = (text: string): void => void steps.push({ kind: m.role === "user" ? "prompt" : "reply", text: clip(text), at });
  if (typeof m.content === "string" && m.content.trim()) said(m.content);
  for (const raw of arr(m.content)) {
    const b = obj(raw) ?? {};
    if (b.type === "text" && str(b.text)) said(b.text as string);
    if (b.type === "tool_use") {
      const input = obj(b.input) ?? {};
      const name = str(b.name) ?? "";
      if (name === "execute_command") steps.push({ kind: "command", text: clip(str(input.command) ?? ""), at });
      else if (name === "write_to_file" || name === "replace_in_file") {
        const file = str(input.path) ?? "";
        steps.push({ kind: "file_change", text: `${name} ${file}`, path: file, at });
      } else if (name === "use_mcp_tool") steps.push({ kind: "mcp", text: clip(`${str(input.server_name) ?? "mcp"}.${str(input.tool_name) ?? ""} ${brief(input.arguments ?? "")}`), at });
    }
    if (b.type === "tool_result" && b.is_error === true) steps.push({ kind: "tool_failure", text: clip(contentText(b.content)), at });
  }
  return steps;
}

/** Cline 3.x CLI sessions: `sessions/<id>/<id>.json` (metadata) beside `<id>.messages.json`. */
async function listCliSessions(ctx: ReaderContext): Promise<StoredSession[]> {
  const out: StoredSession[] = [];
  const root = path.join(ctx.dir, "sessions");
  for (const ent of await entries(root)) {
    if (!ent.isDirectory()) continue;
    const meta = await readJsonFile(path.join(root, ent.name, `${ent.name}.json`));
    if (!meta) continue;
    const file = path.join(root, ent.name, `${ent.name}.messages.json`);
    const stat = await fs.stat(file).catch(() => undefined);
    out.push({
      id: str(meta.session_id) ?? ent.name,
      runtime: "cline",
      title: titleOf(str(obj(meta.metadata)?.title) ?? str(meta.prompt)) || "(untitled)",
      cwd: str(meta.cwd) ?? null,
      lastActivity: iso(meta.updated_at) ?? iso(meta.ended_at) ?? stat?.mtime.toISOString() ?? iso(meta.started_at) ?? new Date(0).toISOString(),
      file,
      counts: { prompts: 0, replies: 0, tools: 0, approximate: true },
      native: { ok: true },
      extra: { store: "cli" },
    });
  }
  return out;
}

/** The older task history: `tasks/<id>/ui_messages.json` and `state/taskHistory.json`. */
async function listTaskHistory(ctx: ReaderContext): Promise<StoredSession[]> {
  const history = await readHistory(ctx.dir);
  const out: StoredSession[] = [];
  const notNative = { ok: false, reason: "it is in Cline's older task history, which the CLI cannot reopen" };
  const tasksDir = path.join(ctx.dir, "tasks");
  for (const ent of await entries(tasksDir)) {
    if (!ent.isDirectory()) continue;
    const file = path.join(tasksDir, ent.name, "ui_messages.json");
    if (!(await exists(file))) continue;
    const h = history.get(ent.name);
    const head = await headTask(file);
    out.push({
      id: ent.name,
      runtime: "cline",
      title: titleOf(h?.task ?? head.title) || "(untitled)",
      cwd: h?.cwd ?? null,
      lastActivity: iso(h?.ts) ?? head.mtime.toISOString(),
      file,
      counts: { prompts: 0, replies: 0, tools: 0, approximate: true },
      native: notNative,
      extra: { store: "task" },
    });
    history.delete(ent.name);
  }
  for (const h of history.values()) {
    out.push({
      id: h.id,
      runtime: "cline",
      title: titleOf(h.task) || "(untitled)",
      cwd: h.cwd ?? null,
      lastActivity: iso(h.ts) ?? new Date(0).toISOString(),
      file: path.join(ctx.dir, "state", "taskHistory.json"),
      counts: { prompts: h.task ? 1 : 0, replies: 0, tools: 0, approximate: true },
      native: notNative,
      // The task text is not kept here: `list --json` prints `extra`, and only briefs are redacted step by step.
      extra: { store: "history", data: ctx.dir },
    });
  }
  return out;
}

/** A task the CLI also holds as a session (same id, or the session id is `<task id>_<suffix>`). */
function sameTask(taskId: string, sessionIds: Set<string>, prefixes: Set<string>): boolean {
  return sessionIds.has(taskId) || prefixes.has(taskId);
}

export const clineReader: StoreReading = {
  async list(ctx) {
    const sessions = await listCliSessions(ctx);
    const ids = new Set(sessions.map((s) => s.id));
    const prefixes = new Set(sessions.map((s) => s.id.split("_")[0]));
    // The CLI session is the copy that is listed when a task is in both stores.
    return [...sessions, ...(await listTaskHistory(ctx)).filter((t) => !sameTask(t.id, ids, prefixes))];
  },
  async readSteps(session, _ctx, emit) {
    if (session.extra?.store === "history") {
      const task = (await readHistory(session.extra.data)).get(session.id)?.task;
      if (task) emit({ kind: "prompt", text: clip(task) });
      return;
    }
    const parsed: unknown = JSON.parse(await fs.readFile(session.file, "utf8"));
    if (session.extra?.store === "cli") {
      for (const raw of arr(obj(parsed)?.messages)) {
        const m = obj(raw);
        if (m) for (const step of clineSessionSteps(m, iso(m.ts) ?? iso(m.timestamp))) emit(step);
      }
      return;
    }
    for (const raw of arr(parsed)) {
      const m = obj(raw);
      if (m) for (const step of clineMessageSteps(m)) emit(step);
    }
  },
};

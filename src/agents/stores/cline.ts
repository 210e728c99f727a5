// Cline CLI: `${CLINE_DIR:-~/.cline}/data`, the same layout as the extension's global storage:
// `tasks/<id>/ui_messages.json` (ClineMessage[]: {ts, type: say | ask, say?, ask?, text}) and
// `state/taskHistory.json` (HistoryItem[]: {id, ts, task, cwdOnTaskInitialization, …}). A task with
// its folder is the CLI's own session; one known only from the history list is older task history,
// which the CLI cannot reopen, so it continues from a brief.

import { promises as fs } from "node:fs";
import path from "node:path";
import type { ReaderContext, SessionStep, StoreReader, StoredSession } from "./types.js";
import { entries, exists, readHeadTail } from "./files.js";
import { arr, brief, clip, iso, num, obj, str, titleOf } from "./text.js";

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

async function listTasks(ctx: ReaderContext): Promise<StoredSession[]> {
  const history = await readHistory(ctx.dir);
  const out: StoredSession[] = [];
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
      native: { ok: true },
      extra: { store: "cli" },
    });
    history.delete(ent.name);
  }
  // What is left is known only from the older task history.
  for (const h of history.values()) {
    out.push({
      id: h.id,
      runtime: "cline",
      title: titleOf(h.task) || "(untitled)",
      cwd: h.cwd ?? null,
      lastActivity: iso(h.ts) ?? new Date(0).toISOString(),
      file: path.join(ctx.dir, "state", "taskHistory.json"),
      counts: { prompts: h.task ? 1 : 0, replies: 0, tools: 0, approximate: true },
      native: { ok: false, reason: "it is known only from Cline's older task history, which the CLI cannot reopen" },
      // The task text is not kept here: `list --json` prints `extra`, and only briefs are redacted step by step.
      extra: { store: "history", data: ctx.dir },
    });
  }
  return out;
}

export const clineReader: StoreReader = {
  runtime: "cline",
  label: "Cline",
  defaultDir: (env, home) => path.join(env.CLINE_DIR || path.join(home, ".cline"), "data"),
  list: listTasks,
  async readSteps(session, _ctx, emit) {
    if (session.extra?.store === "history") {
      const task = (await readHistory(session.extra.data)).get(session.id)?.task;
      if (task) emit({ kind: "prompt", text: clip(task) });
      return;
    }
    const messages = arr(JSON.parse(await fs.readFile(session.file, "utf8")));
    for (const raw of messages) {
      const m = obj(raw);
      if (m) for (const step of clineMessageSteps(m)) emit(step);
    }
  },
};

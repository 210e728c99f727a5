// Hermes Agent: SQLite `state.db` in the Hermes home (`$HERMES_HOME`, else the active profile's
// home, else `~/.hermes`; Windows `%LOCALAPPDATA%/hermes`). Tables `sessions` (id, source, title, cwd, parent_session_id,
// end_reason, started_at, last_activity_at, …) and `messages` (session_id, role, content,
// tool_calls, tool_name, timestamp). Compression ends a session (`end_reason = 'compression'`)
// and continues it in a child; any other child is a delegate subagent.

import type { SessionStep, StoreReading, StoredSession } from "../../stores/types.js";
import { exists } from "../../stores/files.js";
import { columns, openSqlite, type SqliteFile } from "../../stores/sqlite.js";
import { arr, brief, clip, iso, obj, str, titleOf } from "../../stores/text.js";

const SHELL_TOOLS = new Set(["terminal", "shell", "bash", "execute_command"]);
const FILE_TOOLS = new Set(["write_file", "patch", "edit_file", "replace_in_file"]);

interface Row {
  id: string;
  title: string | null;
  cwd: string | null;
  parent: string | null;
  end_reason: string | null;
  started: unknown;
  last: unknown;
  prompts: number;
  replies: number;
  tools: number;
  first_prompt: string | null;
}

function col(cols: Set<string>, name: string, alias: string): string {
  return cols.has(name) ? `s.${name} AS ${alias}` : `NULL AS ${alias}`;
}

function loadRows(db: SqliteFile): Row[] {
  const c = columns(db, "sessions");
  const last = c.has("last_activity_at") ? "s.last_activity_at" : c.has("ended_at") ? "COALESCE(s.ended_at, s.started_at)" : "s.started_at";
  return db.query<Row & Record<string, unknown>>(
    `SELECT s.id AS id, ${col(c, "title", "title")}, ${col(c, "cwd", "cwd")}, ${col(c, "parent_session_id", "parent")},
      ${col(c, "end_reason", "end_reason")}, s.started_at AS started,
      COALESCE(${last}, (SELECT max(timestamp) FROM messages m WHERE m.session_id = s.id)) AS last,
      (SELECT count(*) FROM messages m WHERE m.session_id = s.id AND m.role = 'user') AS prompts,
      (SELECT count(*) FROM messages m WHERE m.session_id = s.id AND m.role = 'assistant') AS replies,
      (SELECT count(*) FROM messages m WHERE m.session_id = s.id AND m.role = 'tool') AS tools,
      (SELECT content FROM messages m WHERE m.session_id = s.id AND m.role = 'user' ORDER BY m.timestamp, m.id LIMIT 1) AS first_prompt
     FROM sessions s`,
  );
}

/** The newest session of a compression chain: what `hermes --resume` should reopen. */
function latestOfChain(id: string, byId: Map<string, Row>, children: Map<string, Row[]>): string {
  let cur = byId.get(id);
  for (let hops = 0; cur && cur.end_reason === "compression" && hops < 1000; hops++) {
    const next = (children.get(cur.id) ?? []).sort((a, b) => String(b.started).localeCompare(String(a.started)))[0];
    if (!next) break;
    cur = next;
  }
  return cur?.id ?? id;
}

export function hermesMessageSteps(role: string, content: string | null, toolCalls: string | null, at?: string): SessionStep[] {
  const steps: SessionStep[] = [];
  if (role === "user" && content?.trim()) steps.push({ kind: "prompt", text: clip(content), at });
  if (role === "assistant" && content?.trim()) steps.push({ kind: "reply", text: clip(content), at });
  if (role === "tool" && content && /^\s*(\{\s*"error"|Error\b)/.test(content)) steps.push({ kind: "tool_failure", text: clip(content), at });
  if (role === "assistant" && toolCalls) {
    let calls: unknown[] = [];
    try {
      calls = arr(JSON.parse(toolCalls));
    } catch {
      calls = [];
    }
    for (const call of calls) {
      const fn = obj(obj(call)?.function) ?? {};
      const name = str(fn.name) ?? "";
      let args: Record<string, unknown> = {};
      try {
        args = obj(typeof fn.arguments === "string" ? JSON.parse(fn.arguments) : fn.arguments) ?? {};
      } catch {
        args = {};
      }
      if (SHELL_TOOLS.has(name)) steps.push({ kind: "command", text: clip(str(args.command) ?? brief(args)), at });
      else if (FILE_TOOLS.has(name)) {
        const file = str(args.path) ?? str(args.file_path) ?? "";
        steps.push({ kind: "file_change", text: `${name} ${file}`, path: file, at });
      } else if (name.startsWith("mcp_")) steps.push({ kind: "mcp", text: clip(`${name} ${brief(args)}`), at });
    }
  }
  return steps;
}

export const hermesReader: StoreReading = {
  async list(ctx) {
    if (!(await exists(ctx.dir))) return [];
    const db = await openSqlite(ctx.dir);
    let rows: Row[];
    try {
      rows = loadRows(db);
    } finally {
      db.close();
    }
    const byId = new Map(rows.map((r) => [r.id, r]));
    const children = new Map<string, Row[]>();
    for (const r of rows) if (r.parent) children.set(r.parent, [...(children.get(r.parent) ?? []), r]);
    const out: StoredSession[] = [];
    for (const r of rows) {
      const parent = r.parent ? byId.get(r.parent) : undefined;
      // A child of a compressed session continues it; any other child is a delegate subagent.
      const isSubagent = !!r.parent && parent?.end_reason !== "compression";
      if (isSubagent && !ctx.includeSubagents) continue;
      out.push({
        id: r.id,
        runtime: "hermes",
        title: titleOf(r.title ?? r.first_prompt ?? "") || "(untitled)",
        cwd: r.cwd,
        lastActivity: iso(r.last) ?? iso(r.started) ?? new Date(0).toISOString(),
        file: ctx.dir,
        counts: { prompts: Number(r.prompts) || 0, replies: Number(r.replies) || 0, tools: Number(r.tools) || 0 },
        ...(isSubagent ? { subagentOf: r.parent as string } : {}),
        native: isSubagent ? { ok: false, reason: "Hermes Agent cannot reopen a delegate subagent's session" } : { ok: true, ref: latestOfChain(r.id, byId, children) },
      });
    }
    return out;
  },
  async readSteps(session, _ctx, emit) {
    const db = await openSqlite(session.file);
    try {
      const rows = db.query<{ role: string; content: string | null; tool_calls: string | null; ts: unknown }>(
        "SELECT role, content, tool_calls, timestamp AS ts FROM messages WHERE session_id = ? ORDER BY timestamp, id",
        [session.id],
      );
      for (const r of rows) for (const step of hermesMessageSteps(r.role, r.content, r.tool_calls, iso(r.ts))) emit(step);
    } finally {
      db.close();
    }
  },
};

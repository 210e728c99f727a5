// OpenCode: `${XDG_DATA_HOME:-~/.local/share}/opencode`. ≥ 1.2 keeps sessions in SQLite
// `opencode.db` (or $OPENCODE_DB): tables `session`, `message`, `part` with JSON `data`.
// ≤ 1.1 used files: `storage/session/<project>/<id>.json`, `storage/message/<session>/<id>.json`,
// `storage/part/<message>/<id>.json`. A session in both is listed once, from SQLite.

import { promises as fs } from "node:fs";
import path from "node:path";
import type { ReaderContext, SessionStep, StoreReading, StoredSession } from "../../stores/types.js";
import { opencodeDbPath } from "./locations.js";
import { entries, exists, findFiles, readJsonFile } from "../../stores/files.js";
import { columns, openSqlite } from "../../stores/sqlite.js";
import { brief, clip, iso, obj, str, titleOf } from "../../stores/text.js";

/** OpenCode's placeholder titles; the first prompt says more. */
const PLACEHOLDER_TITLE = /^(New session|Child session) - /;
const FILE_TOOLS = new Set(["edit", "write", "patch", "multiedit"]);

/** Steps of one part, given its message's role. */
export function opencodePartSteps(role: string, part: Record<string, unknown>, at?: string): SessionStep[] {
  if (part.type === "text" && typeof part.text === "string" && !part.synthetic) {
    return [{ kind: role === "user" ? "prompt" : "reply", text: clip(part.text), at }];
  }
  if (part.type !== "tool") return [];
  const tool = str(part.tool) ?? "tool";
  const state = obj(part.state) ?? {};
  const input = obj(state.input) ?? {};
  if (state.status === "error") return [{ kind: "tool_failure", text: clip(`${tool}: ${str(state.error) ?? brief(input)}`), at }];
  if (tool === "bash") {
    const exit = obj(state.metadata)?.exit;
    return [{ kind: "command", text: clip(str(input.command) ?? ""), at, ...(typeof exit === "number" ? { exitCode: exit } : {}) }];
  }
  if (FILE_TOOLS.has(tool)) {
    const file = str(input.filePath) ?? str(input.path) ?? "";
    return [{ kind: "file_change", text: `${tool} ${file}`, path: file, at }];
  }
  if (tool.includes("_") && !["todowrite", "todoread"].includes(tool)) return [{ kind: "mcp", text: clip(`${tool} ${brief(input)}`), at }];
  return [];
}

function parseJson(v: unknown): Record<string, unknown> {
  if (typeof v !== "string") return {};
  try {
    return obj(JSON.parse(v)) ?? {};
  } catch {
    return {};
  }
}

async function listSqlite(file: string): Promise<StoredSession[]> {
  const db = await openSqlite(file);
  try {
    const cols = columns(db, "session");
    const parent = cols.has("parent_id") ? "s.parent_id" : "NULL";
    const rows = db.query<Record<string, unknown>>(
      `SELECT s.id, s.title, s.directory, ${parent} AS parent_id, s.time_created, s.time_updated,
        (SELECT count(*) FROM message m WHERE m.session_id = s.id AND json_extract(m.data, '$.role') = 'user') AS prompts,
        (SELECT count(*) FROM message m WHERE m.session_id = s.id AND json_extract(m.data, '$.role') = 'assistant') AS replies,
        (SELECT count(*) FROM part p WHERE p.session_id = s.id AND json_extract(p.data, '$.type') = 'tool') AS tools
       FROM session s`,
    );
    return rows.map((r) => {
      let title = str(r.title) ?? "";
      if (!title || PLACEHOLDER_TITLE.test(title)) {
        const first = db.query<{ text: unknown }>(
          `SELECT json_extract(p.data, '$.text') AS text FROM part p JOIN message m ON m.id = p.message_id
           WHERE p.session_id = ? AND json_extract(m.data, '$.role') = 'user' AND json_extract(p.data, '$.type') = 'text'
           ORDER BY m.time_created, p.id LIMIT 1`,
          [r.id],
        )[0];
        title = str(first?.text) ?? title;
      }
      const id = String(r.id);
      return {
        id,
        runtime: "opencode",
        title: titleOf(title) || "(untitled)",
        cwd: str(r.directory) ?? null,
        lastActivity: iso(r.time_updated) ?? iso(r.time_created) ?? new Date(0).toISOString(),
        file,
        counts: { prompts: Number(r.prompts) || 0, replies: Number(r.replies) || 0, tools: Number(r.tools) || 0 },
        ...(str(r.parent_id) ? { subagentOf: str(r.parent_id) } : {}),
        native: { ok: true },
        extra: { store: "sqlite" },
      } satisfies StoredSession;
    });
  } finally {
    db.close();
  }
}

async function legacyMessages(storage: string, sessionId: string): Promise<Array<{ id: string; role: string; at?: string }>> {
  const files = await findFiles(path.join(storage, "message", sessionId), (n) => n.endsWith(".json"), 0);
  const out: Array<{ id: string; role: string; at?: string }> = [];
  for (const f of files) {
    const m = await readJsonFile(f);
    if (m) out.push({ id: str(m.id) ?? path.basename(f, ".json"), role: str(m.role) ?? "", at: iso(obj(m.time)?.created) });
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : 1));
}

async function legacyParts(storage: string, messageId: string): Promise<Record<string, unknown>[]> {
  const files = (await findFiles(path.join(storage, "part", messageId), (n) => n.endsWith(".json"), 0)).sort();
  const out: Record<string, unknown>[] = [];
  for (const f of files) {
    const p = await readJsonFile(f);
    if (p) out.push(p);
  }
  return out;
}

async function listLegacy(storage: string, ctx: ReaderContext): Promise<StoredSession[]> {
  const out: StoredSession[] = [];
  for (const project of await entries(path.join(storage, "session"))) {
    if (!project.isDirectory()) continue;
    for (const file of await findFiles(path.join(storage, "session", project.name), (n) => n.endsWith(".json"), 0)) {
      const s = await readJsonFile(file);
      if (!s) {
        ctx.warn(`OpenCode: cannot read ${file}`);
        continue;
      }
      const id = str(s.id) ?? path.basename(file, ".json");
      const time = obj(s.time) ?? {};
      let title = str(s.title) ?? "";
      const msgs = await legacyMessages(storage, id);
      if (!title || PLACEHOLDER_TITLE.test(title)) {
        const firstUser = msgs.find((m) => m.role === "user");
        const parts = firstUser ? await legacyParts(storage, firstUser.id) : [];
        title = str(parts.find((p) => p.type === "text")?.text) ?? title;
      }
      out.push({
        id,
        runtime: "opencode",
        title: titleOf(title) || "(untitled)",
        cwd: str(s.directory) ?? null,
        lastActivity: iso(time.updated) ?? iso(time.created) ?? (await fs.stat(file)).mtime.toISOString(),
        file,
        counts: { prompts: msgs.filter((m) => m.role === "user").length, replies: msgs.filter((m) => m.role === "assistant").length, tools: 0, approximate: true },
        ...(str(s.parentID) ? { subagentOf: str(s.parentID) } : {}),
        native: { ok: true },
        extra: { store: "legacy", storage },
      });
    }
  }
  return out;
}

export const opencodeReader: StoreReading = {
  async list(ctx) {
    const db = opencodeDbPath(ctx);
    const fromDb = (await exists(db)) ? await listSqlite(db) : [];
    const seen = new Set(fromDb.map((s) => s.id));
    const legacy = (await listLegacy(path.join(ctx.dir, "storage"), ctx)).filter((s) => !seen.has(s.id));
    return [...fromDb, ...legacy].filter((s) => ctx.includeSubagents || !s.subagentOf);
  },
  async readSteps(session, _ctx, emit) {
    if (session.extra?.store === "legacy") {
      const storage = session.extra.storage;
      for (const m of await legacyMessages(storage, session.id)) {
        for (const p of await legacyParts(storage, m.id)) for (const step of opencodePartSteps(m.role, p, m.at)) emit(step);
      }
      return;
    }
    const db = await openSqlite(session.file);
    try {
      const rows = db.query<{ mdata: unknown; pdata: unknown; created: unknown }>(
        `SELECT m.data AS mdata, p.data AS pdata, m.time_created AS created FROM part p JOIN message m ON m.id = p.message_id
         WHERE p.session_id = ? ORDER BY m.time_created, m.id, p.id`,
        [session.id],
      );
      for (const r of rows) {
        const role = str(parseJson(r.mdata).role) ?? "";
        for (const step of opencodePartSteps(role, parseJson(r.pdata), iso(r.created))) emit(step);
      }
    } finally {
      db.close();
    }
  },
};

// Cursor: agent transcripts under `~/.cursor/projects/<project>/agent-transcripts/<id>.jsonl`
// (subagents in `<parent id>/…` below it) and Composer conversations in the global storage
// `state.vscdb` (table cursorDiskKV: `composerData:<id>`, `bubbleId:<id>:<bubble>`). A conversation
// stored both ways is listed once. `cursor-agent --resume` reopens only chats it keeps under
// `<config>/chats/<md5(cwd)>/<id>`, so only those are reopened natively.

import { createHash } from "node:crypto";
import path from "node:path";
import type { ReaderContext, SessionStep, StoreReading, StoredSession } from "../../stores/types.js";
import { cursorChatsRoot, cursorGlobalDb } from "./locations.js";
import { entries, exists, findFiles, LIST_CONCURRENCY, mapLimit, resolveLossyPath } from "../../stores/files.js";
import { type Interpret, sessionFrom, streamJsonlSteps, summarizeJsonl } from "../../stores/jsonl.js";
import { openSqlite } from "../../stores/sqlite.js";
import { arr, brief, clip, contentText, iso, obj, str, titleOf } from "../../stores/text.js";

const SHELL_TOOLS = new Set(["Shell", "run_terminal_cmd", "run_terminal_command"]);
const FILE_TOOLS = new Set(["Write", "StrReplace", "edit_file", "search_replace", "write", "MultiEdit", "Edit"]);

export function cursorToolStep(name: string, input: Record<string, unknown>, at?: string): SessionStep | undefined {
  if (SHELL_TOOLS.has(name)) return { kind: "command", text: clip(str(input.command) ?? ""), at };
  if (FILE_TOOLS.has(name)) {
    const file = str(input.path) ?? str(input.file_path) ?? str(input.target_file) ?? "";
    return { kind: "file_change", text: `${name} ${file}`, path: file, at };
  }
  if (name.startsWith("mcp")) return { kind: "mcp", text: clip(`${name} ${brief(input)}`), at };
  return undefined;
}

/** Cursor wraps what the person typed in <user_query> tags; the brief shows the text itself. */
function unwrapQuery(text: string): string {
  const m = /<user_query>\s*([\s\S]*?)\s*<\/user_query>/.exec(text);
  return m ? m[1] : text;
}

const interpret: Interpret = (rec) => {
  const msg = obj(rec.message) ?? rec;
  const role = str(rec.role) ?? str(msg.role) ?? str(rec.type);
  const at = str(rec.timestamp) ?? iso(rec.createdAt);
  const steps: SessionStep[] = [];
  const content = msg.content ?? rec.text;
  const said = (text: string): SessionStep => (role === "user" ? { kind: "prompt", text: clip(unwrapQuery(text)), at } : { kind: "reply", text: clip(text), at });
  if (typeof content === "string" && content.trim()) steps.push(said(content));
  for (const block of arr(content)) {
    const b = obj(block);
    if (b?.type === "text" && str(b.text)) steps.push(said(b.text as string));
    if (b?.type === "tool_use") {
      const step = cursorToolStep(str(b.name) ?? "", obj(b.input) ?? {}, at);
      if (step) steps.push(step);
    }
    if (b?.type === "tool_result" && b.is_error === true) steps.push({ kind: "tool_failure", text: clip(contentText(b.content)), at });
  }
  return { cwd: str(rec.cwd), at, steps };
};

/** The project folder name is the path with `/` (and other punctuation) as `-`: lossy, so resolve it on disk. */
function decodeProject(name: string): string | null {
  return resolveLossyPath(name);
}

const md5 = (s: string): string => createHash("md5").update(s).digest("hex");

async function listTranscripts(ctx: ReaderContext): Promise<StoredSession[]> {
  const chats = cursorChatsRoot(ctx.env, ctx.home);
  const jobs: Array<{ file: string; project: string; parent?: string }> = [];
  for (const project of await entries(ctx.dir)) {
    if (!project.isDirectory()) continue;
    const tdir = path.join(ctx.dir, project.name, "agent-transcripts");
    for (const ent of await entries(tdir)) {
      // Older builds: `<id>.jsonl`; current ones: `<id>/<id>.jsonl`, subagents elsewhere in `<id>/`.
      if (ent.isFile() && ent.name.endsWith(".jsonl")) jobs.push({ file: path.join(tdir, ent.name), project: project.name });
      else if (ent.isDirectory()) {
        const own = path.join(tdir, ent.name, `${ent.name}.jsonl`);
        if (await exists(own)) jobs.push({ file: own, project: project.name });
        if (!ctx.includeSubagents) continue;
        for (const file of await findFiles(path.join(tdir, ent.name), (n) => n.endsWith(".jsonl"), 2)) {
          if (file !== own) jobs.push({ file, project: project.name, parent: ent.name });
        }
      }
    }
  }
  return mapLimit(
    jobs,
    LIST_CONCURRENCY,
    async (j) => {
      const s = await summarizeJsonl(j.file, interpret);
      const id = path.basename(j.file, ".jsonl");
      const cwd = s.cwd ?? decodeProject(j.project);
      if (j.parent)
        return sessionFrom("cursor", j.file, { ...s, cwd: cwd ?? undefined }, id, { id, subagentOf: j.parent, native: { ok: false, reason: "cursor-agent cannot reopen a subagent transcript" } });
      const chatStore = cwd ? path.join(chats, md5(cwd), id) : undefined;
      const native = chatStore && (await exists(chatStore)) ? { ok: true } : { ok: false, reason: "cursor-agent keeps no chat for it (only chats the CLI started can be reopened)" };
      return sessionFrom("cursor", j.file, { ...s, cwd: cwd ?? undefined }, id, { id, native, extra: { store: "transcript" } });
    },
    (j, e) => ctx.warn(`Cursor: cannot read ${j.file}: ${(e as Error).message}`),
  );
}

function parseJson(v: unknown): Record<string, unknown> {
  try {
    return obj(JSON.parse(typeof v === "string" ? v : Buffer.from(v as Uint8Array).toString("utf8"))) ?? {};
  } catch {
    return {};
  }
}

async function listComposers(ctx: ReaderContext): Promise<StoredSession[]> {
  const file = cursorGlobalDb(ctx.env, ctx.home);
  if (!(await exists(file))) return [];
  const db = await openSqlite(file);
  try {
    if (!db.tables().has("cursorDiskKV")) return [];
    const out: StoredSession[] = [];
    for (const row of db.query<{ key: string; value: unknown }>("SELECT key, value FROM cursorDiskKV WHERE key LIKE 'composerData:%'")) {
      const c = parseJson(row.value);
      const id = str(c.composerId) ?? row.key.slice("composerData:".length);
      const bubbles = arr(c.conversation).length ? arr(c.conversation) : arr(c.fullConversationHeadersOnly);
      const firstUser = bubbles.map(obj).find((b) => b?.type === 1);
      let firstText = str(firstUser?.text);
      if (!firstText && firstUser)
        firstText = str(parseJson(db.query<{ value: unknown }>("SELECT value FROM cursorDiskKV WHERE key = ?", [`bubbleId:${id}:${str(firstUser.bubbleId)}`])[0]?.value).text);
      out.push({
        id,
        runtime: "cursor",
        title: titleOf(str(c.name) ?? firstText ?? "") || "(untitled)",
        cwd: null,
        lastActivity: iso(c.lastUpdatedAt) ?? iso(c.createdAt) ?? new Date(0).toISOString(),
        file,
        counts: { prompts: bubbles.filter((b) => obj(b)?.type === 1).length, replies: bubbles.filter((b) => obj(b)?.type === 2).length, tools: 0, approximate: true },
        native: { ok: false, reason: "a Composer conversation from the Cursor IDE cannot be reopened by cursor-agent" },
        extra: { store: "composer" },
      });
    }
    return out;
  } finally {
    db.close();
  }
}

async function composerSteps(session: StoredSession, emit: (s: SessionStep) => void): Promise<void> {
  const db = await openSqlite(session.file);
  try {
    const c = parseJson(db.query<{ value: unknown }>("SELECT value FROM cursorDiskKV WHERE key = ?", [`composerData:${session.id}`])[0]?.value);
    const bubbles = arr(c.conversation).length ? arr(c.conversation) : arr(c.fullConversationHeadersOnly);
    for (const raw of bubbles) {
      let b = obj(raw) ?? {};
      if (!str(b.text) && !b.toolFormerData)
        b = { ...b, ...parseJson(db.query<{ value: unknown }>("SELECT value FROM cursorDiskKV WHERE key = ?", [`bubbleId:${session.id}:${str(b.bubbleId)}`])[0]?.value) };
      const tool = obj(b.toolFormerData);
      if (tool) {
        const step = cursorToolStep(str(tool.name) ?? "", parseJson(tool.rawArgs));
        if (step) emit(step);
      } else if (str(b.text)) emit({ kind: b.type === 1 ? "prompt" : "reply", text: clip(b.text as string) });
    }
  } finally {
    db.close();
  }
}

export const cursorReader: StoreReading = {
  async list(ctx) {
    const transcripts = await listTranscripts(ctx);
    let composers: StoredSession[] = [];
    try {
      composers = await listComposers(ctx);
    } catch (err) {
      ctx.warn(`Cursor: cannot read the Composer database: ${(err as Error).message}`);
    }
    // One entry per id: the transcript when cursor-agent can reopen it, else the Composer record.
    const byId = new Map<string, StoredSession>();
    for (const s of composers) byId.set(s.id, s);
    for (const t of transcripts) {
      const c = byId.get(t.id);
      if (!c || t.native?.ok || t.subagentOf) byId.set(t.id, c && !t.subagentOf ? { ...t, title: t.title === "(untitled)" ? c.title : t.title } : t);
    }
    return [...byId.values()];
  },
  async readSteps(session, ctx, emit) {
    if (session.extra?.store === "composer") return composerSteps(session, emit);
    return streamJsonlSteps(session.file, interpret, emit, ctx.warn);
  },
};

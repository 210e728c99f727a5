// Gemini CLI: `${GEMINI_CLI_HOME:-~}/.gemini/tmp/<project>/chats/session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl`
// (`<project>/.project_root` holds the path). A header `{sessionId, projectHash, startTime,
// lastUpdated, kind}`, messages `{id, timestamp, type: user | gemini | info | error, content,
// toolCalls?}` and updates `{"$set": {messages | lastUpdated | sessionId | summary}}`; a repeated
// message id replaces the earlier one and `{"$rewindTo": id}` drops that message and the rest.
// One session can span files: `gemini --resume <id>` (and ACP `session/load`) starts a file named
// after the minute it resumed in, under the same session id, while the conversation may go on in
// the first file. Files of one session id are read as one session; files with no conversation
// (only Gemini's own session context) are left out, as Gemini's own session list does.

import { promises as fs } from "node:fs";
import path from "node:path";
import type { SessionStep, StoreReading, StoredSession } from "../../stores/types.js";
import { entries, findFiles, forEachJsonLine, LIST_CONCURRENCY, mapLimit } from "../../stores/files.js";
import { type Interpret, type RecordInfo, sessionFrom, summarizeJsonl, summarizeLines, type Summary, TitleRank } from "../../stores/jsonl.js";
import { arr, brief, clip, obj, str } from "../../stores/text.js";

const SHELL_TOOLS = new Set(["run_shell_command"]);
const FILE_TOOLS = new Set(["write_file", "replace", "edit"]);
/** What Gemini CLI puts ahead of the first prompt; context, not something the person typed. */
const SESSION_CONTEXT = /^\s*<session_context>/;

export function geminiToolStep(name: string, args: Record<string, unknown>, at?: string): SessionStep | undefined {
  if (SHELL_TOOLS.has(name)) return { kind: "command", text: clip(str(args.command) ?? ""), at };
  if (FILE_TOOLS.has(name)) {
    const file = str(args.file_path) ?? str(args.absolute_path) ?? "";
    return { kind: "file_change", text: `${name} ${file}`, path: file, at };
  }
  if (name.includes("__")) return { kind: "mcp", text: clip(`${name} ${brief(args)}`), at };
  return undefined;
}

export function partsText(parts: unknown): string {
  return arr(parts)
    .map((p) => str(obj(p)?.text) ?? "")
    .filter(Boolean)
    .join("\n");
}

function messageSteps(rec: Record<string, unknown>): SessionStep[] {
  const at = str(rec.timestamp);
  const steps: SessionStep[] = [];
  const text = typeof rec.content === "string" ? rec.content : partsText(rec.content);
  if (rec.type === "user" && text.trim() && !SESSION_CONTEXT.test(text)) steps.push({ kind: "prompt", text: clip(text), at });
  if (rec.type === "gemini" && text.trim()) steps.push({ kind: "reply", text: clip(text), at });
  if (rec.type === "error" && text.trim()) steps.push({ kind: "tool_failure", text: clip(text), at });
  for (const call of arr(rec.toolCalls)) {
    const c = obj(call) ?? {};
    // A call the person cancelled or that never ran is not reported as a command.
    if (c.status === "cancelled") {
      steps.push({ kind: "tool_failure", text: clip(`Rejected by the user, not run: ${str(c.name) ?? "tool"} ${brief(c.args)}`), at });
      continue;
    }
    if (c.status === "error") steps.push({ kind: "tool_failure", text: clip(`${str(c.name) ?? "tool"}: ${brief(c.result ?? c.resultDisplay)}`), at });
    const step = geminiToolStep(str(c.name) ?? "", obj(c.args) ?? {}, at);
    if (step) steps.push(step);
  }
  return steps;
}

/**
 * One session's reading, over one or several files: messages kept by id (a repeated id or a
 * `$set messages` replaces the earlier copy), rewinds applied, the steps given out at the end.
 */
function newInterpret(): Interpret {
  const byId = new Map<string, Record<string, unknown>>();
  let anon = 0;
  const put = (msg: Record<string, unknown>): void => {
    const id = str(msg.id) ?? `#${anon++}`;
    byId.delete(id); // a replaced message moves to where its newest version was written
    byId.set(id, msg);
  };
  const interpret: Interpret = (rec): RecordInfo | undefined => {
    if (rec.sessionId && rec.startTime) {
      return {
        id: str(rec.sessionId),
        at: str(rec.lastUpdated) ?? str(rec.startTime),
        ...(str(rec.summary) ? { title: rec.summary as string, titleRank: TitleRank.summary } : {}),
        meta: str(rec.kind) ? { kind: rec.kind as string } : undefined,
      };
    }
    const set = obj(rec.$set);
    if (set) {
      for (const msg of arr(set.messages)) if (obj(msg)) put(obj(msg)!);
      return { at: str(set.lastUpdated), ...(str(set.summary) ? { title: set.summary as string, titleRank: TitleRank.summary } : {}) };
    }
    if (typeof rec.$rewindTo === "string") {
      let drop = false;
      for (const key of [...byId.keys()]) if ((drop ||= key === rec.$rewindTo)) byId.delete(key);
      return undefined;
    }
    put(rec);
    return { at: str(rec.timestamp) };
  };
  interpret.flush = () => {
    const steps = [...byId.values()].flatMap(messageSteps);
    byId.clear();
    return steps;
  };
  return interpret;
}

/** A legacy `{sessionId, startTime, lastUpdated, messages: […]}` document as the JSONL lines it maps to. */
async function legacyLines(file: string): Promise<string[]> {
  const doc = obj(JSON.parse(await fs.readFile(file, "utf8"))) ?? {};
  const { messages, ...meta } = doc;
  return [JSON.stringify(meta), ...arr(messages).map((m) => JSON.stringify(m))];
}

async function forEachRecord(file: string, fn: (rec: Record<string, unknown>) => void): Promise<number> {
  if (!file.endsWith(".json")) return (await forEachJsonLine(file, fn)).torn;
  for (const line of await legacyLines(file)) fn(JSON.parse(line) as Record<string, unknown>);
  return 0;
}

interface FileSummary {
  file: string;
  root: string | null;
  summary: Summary;
}

const hasConversation = (f: FileSummary): boolean => f.summary.counts.prompts + f.summary.counts.replies > 0;

/** The files of one session id as one listed session; undefined when none holds a conversation. */
function mergeSession(files: FileSummary[], fallbackId: string): StoredSession | undefined {
  const withContent = files.filter(hasConversation).sort((a, b) => a.file.localeCompare(b.file));
  if (withContent.length === 0) return undefined;
  const newest = [...withContent].sort((a, b) => (b.summary.lastActivity ?? "").localeCompare(a.summary.lastActivity ?? ""))[0];
  const first = withContent[0];
  const latest = files
    .map((f) => f.summary.lastActivity ?? "")
    .sort()
    .at(-1);
  const summary: Summary = {
    ...newest.summary,
    title: first.summary.title || newest.summary.title,
    cwd: newest.summary.cwd ?? newest.root ?? undefined,
    lastActivity: latest || newest.summary.lastActivity,
    counts: withContent.length > 1 ? { ...newest.summary.counts, approximate: true } : newest.summary.counts,
  };
  const kind = summary.meta.kind;
  return sessionFrom("gemini", newest.file, summary, fallbackId, {
    native: kind === "subagent" ? { ok: false, reason: "Gemini CLI cannot reopen a subagent's session" } : { ok: true },
    extra: { ...summary.meta, files: JSON.stringify(withContent.map((f) => f.file)) },
  });
}

export const geminiReader: StoreReading = {
  async list(ctx) {
    const jobs: Array<{ file: string; root: string | null }> = [];
    for (const project of await entries(ctx.dir)) {
      if (!project.isDirectory()) continue;
      const root = await fs.readFile(path.join(ctx.dir, project.name, ".project_root"), "utf8").then(
        (t) => t.trim(),
        () => null,
      );
      // Older releases wrote one JSON document per session (`session-*.json`) instead of JSONL.
      for (const file of await findFiles(path.join(ctx.dir, project.name, "chats"), (n) => n.startsWith("session-") && /\.jsonl?$/.test(n), 0)) jobs.push({ file, root });
    }
    const summaries = await mapLimit(
      jobs,
      LIST_CONCURRENCY,
      async (j): Promise<FileSummary> => ({
        ...j,
        summary: j.file.endsWith(".json") ? summarizeLines(await legacyLines(j.file), newInterpret(), j.file) : await summarizeJsonl(j.file, { fresh: newInterpret }),
      }),
      (j, e) => ctx.warn(`Gemini CLI: cannot read ${j.file}: ${(e as Error).message}`),
    );
    const bySession = new Map<string, FileSummary[]>();
    for (const f of summaries) {
      const id = f.summary.id ?? path.basename(f.file).replace(/\.jsonl?$/, "");
      bySession.set(id, [...(bySession.get(id) ?? []), f]);
    }
    const sessions = [...bySession.entries()].map(([id, files]) => mergeSession(files, id));
    return sessions.filter((s): s is StoredSession => !!s && (ctx.includeSubagents || s.extra?.kind !== "subagent"));
  },
  async readSteps(session, ctx, emit) {
    const files = session.extra?.files ? (JSON.parse(session.extra.files) as string[]) : [session.file];
    const interpret = newInterpret();
    for (const file of files) {
      const torn = await forEachRecord(file, (rec) => void interpret(rec));
      if (torn > 0) ctx.warn(`${file}: skipped ${torn} unreadable line(s)`);
    }
    for (const step of interpret.flush?.() ?? []) emit(step);
  },
};

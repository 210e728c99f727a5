// Grok Build. No public source or documentation of its store's file format could be found (see
// docs/session-stores.md), so this reader is PROVISIONAL: it uses the location and rule
// handoff-cli.txt states (`summary.json` with a subagent `session_kind`) and reads the common shapes
// agent transcripts use (JSONL of `{role|type, content|message}`). A store that does not match
// yields no sessions and a warning, never a guess presented as fact.

import path from "node:path";
import type { SessionStep, StoreReader, StoredSession } from "./types.js";
import { entries, exists, findFiles, LIST_CONCURRENCY, mapLimit, readJsonFile } from "./files.js";
import { type Interpret, sessionFrom, streamJsonlSteps, summarizeJsonl, TitleRank } from "./jsonl.js";
import { arr, brief, clip, contentText, iso, num, obj, str, titleOf } from "./text.js";

const SHELL = /^(bash|shell|run_command|execute|exec|terminal|run_shell_command)$/i;
const FILES = /^(edit|write|write_file|edit_file|apply_patch|create_file|str_replace)$/i;

export function toolStep(name: string, args: Record<string, unknown>, at?: string): SessionStep | undefined {
  if (SHELL.test(name)) return { kind: "command", text: clip(str(args.command) ?? str(args.cmd) ?? brief(args)), at };
  if (FILES.test(name)) {
    const file = str(args.path) ?? str(args.file_path) ?? str(args.file) ?? "";
    return { kind: "file_change", text: `${name} ${file}`, path: file, at };
  }
  if (name.startsWith("mcp")) return { kind: "mcp", text: clip(`${name} ${brief(args)}`), at };
  return undefined;
}

/** Reads the shapes most agent transcripts share; fields named differently are simply not found. */
export const genericInterpret: Interpret = (rec) => {
  const at = str(rec.timestamp) ?? iso(rec.ts) ?? iso(rec.created_at);
  const isMeta = rec.type === "session" || rec.type === "meta" || rec.type === "session_start" || rec.type === "session_meta";
  const meta = isMeta ? { ...rec, ...(obj(rec.payload) ?? {}) } : undefined;
  if (meta) {
    return {
      id: str(meta.session_id) ?? str(meta.sessionId) ?? str(meta.id),
      cwd: str(meta.cwd) ?? str(meta.workspace) ?? str(meta.working_directory),
      title: str(meta.title),
      titleRank: TitleRank.generated,
      parent: str(meta.parent_session_id) ?? str(meta.parentSessionId),
      at,
    };
  }
  const msg = obj(rec.message) ?? rec;
  const role = str(msg.role) ?? str(rec.type);
  const steps: SessionStep[] = [];
  const text = contentText(msg.content ?? msg.text);
  if (role === "user" && text.trim()) steps.push({ kind: "prompt", text: clip(text), at });
  if (role === "assistant" && text.trim()) steps.push({ kind: "reply", text: clip(text), at });
  const calls = [...arr(msg.tool_calls), ...arr(msg.content).filter((b) => obj(b)?.type === "tool_use")];
  for (const c of calls) {
    const call = obj(c) ?? {};
    const fn = obj(call.function) ?? call;
    let args = obj(fn.input) ?? obj(fn.arguments) ?? {};
    if (typeof fn.arguments === "string") {
      try {
        args = obj(JSON.parse(fn.arguments)) ?? {};
      } catch {
        args = {};
      }
    }
    const step = toolStep(str(fn.name) ?? "", args, at);
    if (step) steps.push(step);
  }
  if ((role === "tool" || rec.type === "tool_result") && (rec.is_error === true || msg.is_error === true || num(rec.exit_code))) {
    steps.push({ kind: "tool_failure", text: clip(text || "tool failed"), at });
  }
  return { cwd: str(rec.cwd), at, steps };
};

interface Options {
  runtime: string;
  label: string;
  defaultDir(env: NodeJS.ProcessEnv, home: string): string;
  /** Sessions root inside the store location. */
  sessionsDir(dir: string): string;
  /** Why a subagent cannot be reopened, for runtimes whose CLI cannot. */
  subagentNotNative?: string;
}

/** A session is `<root>/…/<id>.jsonl`, or a folder `<root>/…/<id>/` with metadata and a transcript. */
function provisionalReader(o: Options): StoreReader {
  return {
    runtime: o.runtime,
    label: o.label,
    defaultDir: o.defaultDir,
    async list(ctx) {
      const root = o.sessionsDir(ctx.dir);
      const jobs: Array<{ file: string; meta?: Record<string, unknown>; id: string }> = [];
      for (const file of await findFiles(root, (n) => n.endsWith(".jsonl"), 0)) jobs.push({ file, id: path.basename(file, ".jsonl") });
      for (const ent of await entries(root)) {
        if (!ent.isDirectory()) continue;
        const dir = path.join(root, ent.name);
        const meta = (await readJsonFile(path.join(dir, "summary.json"))) ?? (await readJsonFile(path.join(dir, "session.json")));
        const transcript = (await findFiles(dir, (n) => n.endsWith(".jsonl"), 0)).sort()[0];
        if (transcript) jobs.push({ file: transcript, meta, id: ent.name });
        else if (meta) ctx.warn(`${o.label}: ${dir} has metadata but no transcript Baton can read.`);
      }
      if (jobs.length === 0 && (await exists(root))) ctx.warn(`${o.label}: no sessions in a format Baton reads under ${root} (this reader is provisional).`);
      const listed = await mapLimit(
        jobs,
        LIST_CONCURRENCY,
        async (j) => {
          const s = await summarizeJsonl(j.file, genericInterpret);
          const m = j.meta ?? {};
          const kind = str(m.session_kind) ?? str(m.kind) ?? "";
          const parent = str(m.parent_session_id) ?? str(m.parentSessionId) ?? str(m.spawned_by) ?? s.parent;
          const isSub = !!parent && (kind === "" || /subagent|delegate/i.test(kind));
          const session: StoredSession = sessionFrom(
            o.runtime,
            j.file,
            { ...s, cwd: str(m.cwd) ?? str(m.workspace) ?? s.cwd, title: str(m.title) ? titleOf(m.title as string) : s.title, lastActivity: s.lastActivity ?? iso(m.updated_at) },
            str(m.id) ?? s.id ?? j.id,
            { native: isSub && o.subagentNotNative ? { ok: false, reason: o.subagentNotNative } : { ok: true }, ...(isSub ? { subagentOf: parent } : { subagentOf: undefined }) },
          );
          if (!isSub) delete session.subagentOf;
          return session;
        },
        (j, e) => ctx.warn(`${o.label}: cannot read ${j.file}: ${(e as Error).message}`),
      );
      return listed;
    },
    readSteps: (s, ctx, emit) => streamJsonlSteps(s.file, genericInterpret, emit, ctx.warn),
  };
}

export const grokReader = provisionalReader({
  runtime: "grok",
  label: "Grok Build",
  // Like the seed's sync, GROK_HOME is not read; pass --store-dir grok=$GROK_HOME/sessions.
  defaultDir: (_env, home) => path.join(home, ".grok", "sessions"),
  sessionsDir: (dir) => dir,
  subagentNotNative: "Grok Build cannot reopen a subagent's child session",
});

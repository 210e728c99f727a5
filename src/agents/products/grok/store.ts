// Grok Build (xAI's `grok` CLI): `~/.grok/sessions/<url-encoded cwd>/<id>/` holding `summary.json`
// ({info: {id, cwd}, generated_title, session_summary, created_at, updated_at, last_active_at,
// session_kind, head_branch}) and `chat_history.jsonl` (append-only records `{type: system | user |
// reasoning | assistant | tool_result, content, tool_calls: [{id, name, arguments}], tool_call_id,
// synthetic_reason}`). Subagents' child sessions sit in the same tree with `session_kind:
// "subagent"`. Layout from third-party readers (Grok Build is closed source); tool names are not
// documented, so commands and file edits are recognised by common names. See docs/session-stores.md.

import path from "node:path";
import type { SessionStep, StoreReading, StoredSession } from "../../stores/types.js";
import { entries, exists, LIST_CONCURRENCY, mapLimit, readJsonFile } from "../../stores/files.js";
import { type Interpret, sessionFrom, streamJsonlSteps, summarizeJsonl } from "../../stores/jsonl.js";
import { arr, brief, clip, contentText, iso, obj, str, titleOf } from "../../stores/text.js";

const SHELL = /^(bash|shell|run_command|run_terminal_cmd|execute|exec|terminal|run_shell_command)$/i;
const FILES = /^(edit|write|write_file|edit_file|apply_patch|create_file|str_replace|search_replace|multi_edit)$/i;

export function toolStep(name: string, args: Record<string, unknown>, at?: string): SessionStep | undefined {
  if (SHELL.test(name)) return { kind: "command", text: clip(str(args.command) ?? str(args.cmd) ?? brief(args)), at };
  if (FILES.test(name)) {
    const file = str(args.path) ?? str(args.file_path) ?? str(args.target_file) ?? str(args.file) ?? "";
    return { kind: "file_change", text: `${name} ${file}`, path: file, at };
  }
  if (name.startsWith("mcp")) return { kind: "mcp", text: clip(`${name} ${brief(args)}`), at };
  return undefined;
}

function parseArgs(v: unknown): Record<string, unknown> {
  if (typeof v !== "string") return obj(v) ?? {};
  try {
    return obj(JSON.parse(v)) ?? {};
  } catch {
    return {};
  }
}

/** Reads the shapes most agent transcripts share (also the fallback for DeepSeek Harness lines). */
export const genericInterpret: Interpret = (rec) => {
  const at = str(rec.timestamp) ?? iso(rec.ts) ?? iso(rec.created_at);
  const msg = obj(rec.message) ?? rec;
  const role = str(msg.role) ?? str(rec.type);
  const steps: SessionStep[] = [];
  const text = contentText(msg.content ?? msg.text);
  if (role === "user" && text.trim() && !str(rec.synthetic_reason)) steps.push({ kind: "prompt", text: clip(text), at });
  if (role === "assistant" && text.trim()) steps.push({ kind: "reply", text: clip(text), at });
  const calls = [...arr(msg.tool_calls), ...arr(msg.content).filter((b) => obj(b)?.type === "tool_use")];
  for (const c of calls) {
    const call = obj(c) ?? {};
    const fn = obj(call.function) ?? call;
    const step = toolStep(str(fn.name) ?? "", parseArgs(fn.input ?? fn.arguments), at);
    if (step) steps.push(step);
  }
  if ((role === "tool" || role === "tool_result") && (rec.is_error === true || msg.is_error === true)) {
    steps.push({ kind: "tool_failure", text: clip(text || "tool failed"), at });
  }
  return { cwd: str(rec.cwd), at, steps };
};

/** The cwd from the folder name, which is the URL-encoded path. */
function cwdFromFolder(name: string): string | undefined {
  try {
    const cwd = decodeURIComponent(name);
    return path.isAbsolute(cwd) ? cwd : undefined;
  } catch {
    return undefined;
  }
}

export const grokReader: StoreReading = {
  async list(ctx) {
    const jobs: Array<{ dir: string; folder: string }> = [];
    for (const project of await entries(ctx.dir)) {
      if (!project.isDirectory()) continue;
      for (const ent of await entries(path.join(ctx.dir, project.name))) {
        const dir = path.join(ctx.dir, project.name, ent.name);
        if (ent.isDirectory() && (await exists(path.join(dir, "chat_history.jsonl")))) jobs.push({ dir, folder: project.name });
      }
    }
    const listed = await mapLimit(
      jobs,
      LIST_CONCURRENCY,
      async (j): Promise<StoredSession> => {
        const file = path.join(j.dir, "chat_history.jsonl");
        const s = await summarizeJsonl(file, genericInterpret);
        const m = (await readJsonFile(path.join(j.dir, "summary.json"))) ?? {};
        const info = obj(m.info) ?? {};
        const title = str(m.generated_title) ?? str(m.session_summary);
        const isSub = m.session_kind === "subagent";
        const session = sessionFrom(
          "grok",
          file,
          {
            ...s,
            cwd: str(info.cwd) ?? str(m.working_directory) ?? cwdFromFolder(j.folder) ?? s.cwd,
            branch: str(m.head_branch) ?? s.branch,
            title: title ? titleOf(title) : s.title,
            lastActivity: iso(m.last_active_at) ?? iso(m.updated_at) ?? s.lastActivity,
          },
          str(info.id) ?? path.basename(j.dir),
          isSub
            ? { subagentOf: str(m.parent_session_id) ?? str(m.parentSessionId) ?? "(unknown)", native: { ok: false, reason: "Grok Build cannot reopen a subagent's child session" } }
            : { native: { ok: true } },
        );
        return session;
      },
      (j, e) => ctx.warn(`Grok Build: cannot read ${j.dir}: ${(e as Error).message}`),
    );
    return listed.filter((s) => ctx.includeSubagents || !s.subagentOf);
  },
  readSteps: (s, ctx, emit) => streamJsonlSteps(s.file, genericInterpret, emit, ctx.warn),
};

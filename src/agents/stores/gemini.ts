// Gemini CLI and Qwen Code (a Gemini CLI fork), beyond the seed's table.
// Gemini: `${GEMINI_CLI_HOME:-~}/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl`: line 1
// `{sessionId, projectHash, startTime, lastUpdated}`, then messages `{id, timestamp, type: user |
// gemini | info | error, content, toolCalls?}`; a repeated id replaces the earlier line and
// `{"$rewindTo": id}` drops that message and the rest. `<project>/.project_root` holds the path.
// Qwen: `${QWEN_HOME:-~/.qwen}/projects/<project>/chats/<sessionId>.jsonl`, records `{uuid,
// sessionId, timestamp, type: user | assistant | tool_result | system, cwd, gitBranch, message}`.

import { promises as fs } from "node:fs";
import path from "node:path";
import type { SessionStep, StoreReader } from "./types.js";
import { entries, findFiles, forEachJsonLine, LIST_CONCURRENCY, mapLimit } from "./files.js";
import { type Interpret, sessionFrom, streamJsonlSteps, summarizeJsonl, summarizeLines, TitleRank } from "./jsonl.js";
import { arr, brief, clip, contentText, obj, str } from "./text.js";

const SHELL_TOOLS = new Set(["run_shell_command"]);
const FILE_TOOLS = new Set(["write_file", "replace", "edit"]);

function toolStep(name: string, args: Record<string, unknown>, at?: string): SessionStep | undefined {
  if (SHELL_TOOLS.has(name)) return { kind: "command", text: clip(str(args.command) ?? ""), at };
  if (FILE_TOOLS.has(name)) {
    const file = str(args.file_path) ?? str(args.absolute_path) ?? "";
    return { kind: "file_change", text: `${name} ${file}`, path: file, at };
  }
  if (name.includes("__")) return { kind: "mcp", text: clip(`${name} ${brief(args)}`), at };
  return undefined;
}

function partsText(parts: unknown): string {
  return arr(parts).map((p) => str(obj(p)?.text) ?? "").filter(Boolean).join("\n");
}

const geminiInterpret: Interpret = (rec) => {
  const at = str(rec.timestamp);
  if (rec.sessionId && rec.startTime) return { id: str(rec.sessionId), at: str(rec.lastUpdated) ?? str(rec.startTime) };
  const steps: SessionStep[] = [];
  const text = typeof rec.content === "string" ? rec.content : partsText(rec.content);
  if (rec.type === "user" && text.trim()) steps.push({ kind: "prompt", text: clip(text), at });
  if (rec.type === "gemini" && text.trim()) steps.push({ kind: "reply", text: clip(text), at });
  if (rec.type === "error" && text.trim()) steps.push({ kind: "tool_failure", text: clip(text), at });
  for (const call of arr(rec.toolCalls)) {
    const c = obj(call) ?? {};
    if (c.status === "error") steps.push({ kind: "tool_failure", text: clip(`${str(c.name) ?? "tool"}: ${brief(c.result ?? c.resultDisplay)}`), at });
    const step = toolStep(str(c.name) ?? "", obj(c.args) ?? {}, at);
    if (step) steps.push(step);
  }
  return { at, steps };
};

/** A legacy `{sessionId, startTime, lastUpdated, messages: […]}` document as the JSONL lines it maps to. */
async function legacyLines(file: string): Promise<string[]> {
  const doc = obj(JSON.parse(await fs.readFile(file, "utf8"))) ?? {};
  const { messages, ...meta } = doc;
  return [JSON.stringify(meta), ...arr(messages).map((m) => JSON.stringify(m))];
}

/** Gemini's replace-by-id and rewind rules, applied over the whole file. */
async function geminiSteps(file: string, emit: (s: SessionStep) => void): Promise<void> {
  const byId = new Map<string, Record<string, unknown>>();
  let anon = 0;
  const each = async (fn: (rec: Record<string, unknown>) => void): Promise<void> => {
    if (!file.endsWith(".json")) return void (await forEachJsonLine(file, fn));
    for (const line of await legacyLines(file)) fn(JSON.parse(line) as Record<string, unknown>);
  };
  await each((rec) => {
    if (typeof rec.$rewindTo === "string") {
      let drop = false;
      for (const key of [...byId.keys()]) if ((drop ||= key === rec.$rewindTo)) byId.delete(key);
      return;
    }
    const id = str(rec.id) ?? `#${anon++}`;
    byId.delete(id); // a replaced message moves to where its newest version was written
    byId.set(id, rec);
  });
  for (const rec of byId.values()) for (const step of geminiInterpret(rec)?.steps ?? []) emit(step);
}

export const geminiReader: StoreReader = {
  runtime: "gemini",
  label: "Gemini CLI",
  defaultDir: (env, home) => path.join(env.GEMINI_CLI_HOME || home, ".gemini", "tmp"),
  async list(ctx) {
    const jobs: Array<{ file: string; root: string | null }> = [];
    for (const project of await entries(ctx.dir)) {
      if (!project.isDirectory()) continue;
      const root = await fs.readFile(path.join(ctx.dir, project.name, ".project_root"), "utf8").then((t) => t.trim(), () => null);
      // Older releases wrote one JSON document per session (`session-*.json`) instead of JSONL.
      for (const file of await findFiles(path.join(ctx.dir, project.name, "chats"), (n) => n.startsWith("session-") && /\.jsonl?$/.test(n), 0)) jobs.push({ file, root });
    }
    return mapLimit(
      jobs,
      LIST_CONCURRENCY,
      async (j) => {
        const s = j.file.endsWith(".json") ? summarizeLines(await legacyLines(j.file), geminiInterpret, j.file) : await summarizeJsonl(j.file, geminiInterpret);
        return sessionFrom("gemini", j.file, { ...s, cwd: s.cwd ?? j.root ?? undefined }, path.basename(j.file).replace(/\.jsonl?$/, ""), {
          native: { ok: false, reason: "Gemini CLI's resume was seen failing from a new process; continuing from a brief is reliable" },
        });
      },
      (j, e) => ctx.warn(`Gemini CLI: cannot read ${j.file}: ${(e as Error).message}`),
    );
  },
  readSteps: (s, _ctx, emit) => geminiSteps(s.file, emit),
};

const qwenInterpret: Interpret = (rec) => {
  const at = str(rec.timestamp);
  const base = { id: str(rec.sessionId), cwd: str(rec.cwd), branch: str(rec.gitBranch), at };
  if (rec.type === "system") {
    const payload = obj(rec.systemPayload) ?? {};
    return rec.subtype === "custom_title" ? { ...base, title: str(payload.title) ?? str(payload.customTitle), titleRank: TitleRank.custom } : base;
  }
  const msg = obj(rec.message) ?? {};
  const steps: SessionStep[] = [];
  const text = partsText(msg.parts) || contentText(msg.content);
  if (rec.type === "user" && text.trim() && !str(rec.subtype)) steps.push({ kind: "prompt", text: clip(text), at });
  if (rec.type === "assistant" && text.trim()) steps.push({ kind: "reply", text: clip(text), at });
  for (const part of arr(msg.parts)) {
    const call = obj(obj(part)?.functionCall);
    if (call) {
      const step = toolStep(str(call.name) ?? "", obj(call.args) ?? {}, at);
      if (step) steps.push(step);
    }
    const resp = obj(obj(obj(part)?.functionResponse)?.response);
    if (resp?.error) steps.push({ kind: "tool_failure", text: clip(brief(resp.error)), at });
  }
  return { ...base, steps };
};

export const qwenReader: StoreReader = {
  runtime: "qwen",
  label: "Qwen Code",
  defaultDir: (env, home) => path.join(env.QWEN_HOME || path.join(home, ".qwen"), "projects"),
  async list(ctx) {
    const files: string[] = [];
    for (const project of await entries(ctx.dir)) {
      if (project.isDirectory()) files.push(...(await findFiles(path.join(ctx.dir, project.name, "chats"), (n) => n.endsWith(".jsonl"), 0)));
    }
    return mapLimit(
      files,
      LIST_CONCURRENCY,
      async (f) => sessionFrom("qwen", f, await summarizeJsonl(f, qwenInterpret), path.basename(f, ".jsonl"), { native: { ok: false, reason: "Baton continues Qwen Code sessions from a brief" } }),
      (f, e) => ctx.warn(`Qwen Code: cannot read ${f}: ${(e as Error).message}`),
    );
  },
  readSteps: (s, ctx, emit) => streamJsonlSteps(s.file, qwenInterpret, emit, ctx.warn),
};

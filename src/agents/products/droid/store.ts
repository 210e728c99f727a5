// Factory Droid: `~/.factory/sessions/<workspace slug>/<uuid>.jsonl` (older builds: flat), with
// `<uuid>.settings.json` beside it. Lines: `{type: "session_start", id, title, sessionTitle, cwd}`
// then `{type: "message", timestamp, message: {role, content: [text | tool_use | tool_result]}}`.

import path from "node:path";
import type { SessionStep, StoreReading } from "../../stores/types.js";
import { findFiles, LIST_CONCURRENCY, mapLimit } from "../../stores/files.js";
import { type Interpret, sessionFrom, streamJsonlSteps, summarizeJsonl, TitleRank } from "../../stores/jsonl.js";
import { arr, brief, clip, contentText, obj, str } from "../../stores/text.js";

const FILE_TOOLS = new Set(["Create", "Edit", "MultiEdit", "ApplyPatch"]);

function toolStep(name: string, input: Record<string, unknown>, at?: string): SessionStep | undefined {
  if (name === "Execute") return { kind: "command", text: clip(str(input.command) ?? ""), at };
  if (FILE_TOOLS.has(name)) {
    const file = str(input.file_path) ?? str(input.path) ?? "";
    return { kind: "file_change", text: `${name} ${file}`, path: file, at };
  }
  if (name.includes("___") || name.startsWith("mcp")) return { kind: "mcp", text: clip(`${name} ${brief(input)}`), at };
  return undefined;
}

const interpret: Interpret = (rec) => {
  const at = str(rec.timestamp);
  if (rec.type === "session_start") {
    return { id: str(rec.id), cwd: str(rec.cwd), title: str(rec.sessionTitle) ?? str(rec.title), titleRank: TitleRank.generated };
  }
  if (rec.type !== "message") return undefined;
  const m = obj(rec.message) ?? {};
  const steps: SessionStep[] = [];
  if (typeof m.content === "string") steps.push({ kind: m.role === "user" ? "prompt" : "reply", text: clip(m.content), at });
  for (const block of arr(m.content)) {
    const b = obj(block);
    if (!b) continue;
    if (b.type === "text" && str(b.text) && !/^<system-reminder>/.test(b.text as string)) {
      steps.push({ kind: m.role === "user" ? "prompt" : "reply", text: clip(b.text as string), at });
    } else if (b.type === "tool_use") {
      const step = toolStep(str(b.name) ?? "", obj(b.input) ?? {}, at);
      if (step) steps.push(step);
    } else if (b.type === "tool_result" && b.is_error === true) {
      steps.push({ kind: "tool_failure", text: clip(contentText(b.content)), at });
    }
  }
  return { at, steps };
};

export const droidReader: StoreReading = {
  async list(ctx) {
    const files = await findFiles(ctx.dir, (n) => n.endsWith(".jsonl"), 1);
    return mapLimit(
      files,
      LIST_CONCURRENCY,
      async (f) => sessionFrom("droid", f, await summarizeJsonl(f, interpret), path.basename(f, ".jsonl"), { native: { ok: true } }),
      (f, e) => ctx.warn(`Factory Droid: cannot read ${f}: ${(e as Error).message}`),
    );
  },
  readSteps: (s, ctx, emit) => streamJsonlSteps(s.file, interpret, emit, ctx.warn),
};

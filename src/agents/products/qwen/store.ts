// Qwen Code (a Gemini CLI fork): `${QWEN_HOME:-~/.qwen}/projects/<project>/chats/<sessionId>.jsonl`,
// records `{uuid, sessionId, timestamp, type: user | assistant | tool_result | system, cwd,
// gitBranch, message}`.

import path from "node:path";
import type { SessionStep, StoreReading } from "../../stores/types.js";
import { entries, findFiles, LIST_CONCURRENCY, mapLimit } from "../../stores/files.js";
import { type Interpret, sessionFrom, streamJsonlSteps, summarizeJsonl, TitleRank } from "../../stores/jsonl.js";
import { arr, brief, clip, contentText, obj, str } from "../../stores/text.js";
import { geminiToolStep, partsText } from "../gemini/store.js";

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
      const step = geminiToolStep(str(call.name) ?? "", obj(call.args) ?? {}, at);
      if (step) steps.push(step);
    }
    const resp = obj(obj(obj(part)?.functionResponse)?.response);
    if (resp?.error) steps.push({ kind: "tool_failure", text: clip(brief(resp.error)), at });
  }
  return { ...base, steps };
};

export const qwenReader: StoreReading = {
  async list(ctx) {
    const files: string[] = [];
    for (const project of await entries(ctx.dir)) {
      if (project.isDirectory()) files.push(...(await findFiles(path.join(ctx.dir, project.name, "chats"), (n) => n.endsWith(".jsonl"), 0)));
    }
    return mapLimit(
      files,
      LIST_CONCURRENCY,
      async (f) => sessionFrom("qwen", f, await summarizeJsonl(f, qwenInterpret), path.basename(f, ".jsonl")),
      (f, e) => ctx.warn(`Qwen Code: cannot read ${f}: ${(e as Error).message}`),
    );
  },
  readSteps: (s, ctx, emit) => streamJsonlSteps(s.file, qwenInterpret, emit, ctx.warn),
};

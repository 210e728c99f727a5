// Qwen Code (a Gemini CLI fork): `${QWEN_HOME:-~/.qwen}/projects/<project>/chats/<sessionId>.jsonl`,
// records `{uuid, sessionId, timestamp, type: user | assistant | tool_result | system, cwd,
// gitBranch, message}` (0.24.4 seen writing them). A tool call is a `functionCall` part of an
// assistant record; its outcome comes later, in a `tool_result` record whose `toolCallResult`
// says `{callId, status, executionStatus}` (a call the person rejected: "cancelled", "not_started").

import path from "node:path";
import type { SessionStep, StoreReading } from "../../stores/types.js";
import { entries, findFiles, LIST_CONCURRENCY, mapLimit } from "../../stores/files.js";
import { type Interpret, sessionFrom, streamJsonlSteps, summarizeJsonl, TitleRank } from "../../stores/jsonl.js";
import { arr, brief, clip, contentText, obj, str } from "../../stores/text.js";
import { geminiToolStep, partsText } from "../gemini/store.js";

interface Call {
  name: string;
  args: Record<string, unknown>;
}

/** What one tool result says about its call: ran (a command, an edit), rejected, or failed. */
function resultSteps(call: Call | undefined, result: Record<string, unknown>, error: unknown, at?: string): SessionStep[] {
  const name = call?.name ?? "tool";
  if (result.status === "cancelled" || result.executionStatus === "not_started") {
    return [{ kind: "tool_failure", text: clip(`Rejected by the user, not run: ${name} ${brief(call?.args ?? {})}`), at }];
  }
  const steps: SessionStep[] = [];
  // A call whose request fell outside what was read (a big file's middle) is known only by its result.
  const step = call && geminiToolStep(call.name, call.args, at);
  if (step) steps.push(step);
  if (error) steps.push({ kind: "tool_failure", text: clip(`${name}: ${brief(error)}`), at });
  return steps;
}

/** One file's interpretation: calls are held until their results say whether they ran. */
function newInterpret(): Interpret {
  const calls = new Map<string, Call>();
  return (rec) => {
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
      if (call) calls.set(str(call.id) ?? "", { name: str(call.name) ?? "", args: obj(call.args) ?? {} });
      const response = obj(obj(part)?.functionResponse);
      if (!response) continue;
      const id = str(response.id) ?? "";
      const result = obj(rec.toolCallResult) ?? {};
      steps.push(...resultSteps(calls.get(id), result, obj(response.response)?.error, at));
      calls.delete(id);
    }
    return { ...base, steps };
  };
}

export const qwenReader: StoreReading = {
  async list(ctx) {
    const files: string[] = [];
    for (const project of await entries(ctx.dir)) {
      if (project.isDirectory()) files.push(...(await findFiles(path.join(ctx.dir, project.name, "chats"), (n) => n.endsWith(".jsonl"), 0)));
    }
    return mapLimit(
      files,
      LIST_CONCURRENCY,
      async (f) => sessionFrom("qwen", f, await summarizeJsonl(f, { fresh: newInterpret }), path.basename(f, ".jsonl")),
      (f, e) => ctx.warn(`Qwen Code: cannot read ${f}: ${(e as Error).message}`),
    );
  },
  readSteps: (s, ctx, emit) => streamJsonlSteps(s.file, newInterpret(), emit, ctx.warn),
};

// Pi (pi-mono coding agent): `${PI_CODING_AGENT_DIR:-~/.pi/agent}/sessions/--<cwd>--/<time>_<uuid>.jsonl`.
// Line 1 is `{type: "session", id, cwd, timestamp, parentSession?}`; entries `{type: "message",
// message: {role: user | assistant | toolResult | bashExecution, …}}`, `session_info {name}`.
// Prime Agent is built from the same pi-coding-agent code (config dir `.prime/agent`, variables
// prefixed PRIME_AGENT_), so it writes the same format under `~/.prime/agent/sessions`; subagent
// transcripts sit under `session-artifacts/<parent session id>/…` (that layout is assumed).
// Both CLIs reopen by session file, not id.

import path from "node:path";
import type { SessionStep, StoreReading, StoredSession } from "../../stores/types.js";
import { findFiles, LIST_CONCURRENCY, mapLimit } from "../../stores/files.js";
import { type Interpret, sessionFrom, streamJsonlSteps, summarizeJsonl, TitleRank } from "../../stores/jsonl.js";
import { arr, brief, clip, contentText, num, obj, str, iso } from "../../stores/text.js";

const FILE_TOOLS = new Set(["edit", "write", "multi_edit"]);

export const piInterpret: Interpret = (rec) => {
  const at = str(rec.timestamp);
  if (rec.type === "session") return { id: str(rec.id), cwd: str(rec.cwd), at };
  if (rec.type === "session_info") return { title: str(rec.name), titleRank: TitleRank.custom, at };
  if (rec.type !== "message") return { at };
  const m = obj(rec.message) ?? {};
  const steps: SessionStep[] = [];
  switch (m.role) {
    case "user": {
      const text = contentText(m.content);
      if (text.trim()) steps.push({ kind: "prompt", text: clip(text), at });
      break;
    }
    case "assistant":
      for (const block of arr(m.content)) {
        const b = obj(block);
        if (b?.type === "text" && str(b.text)) steps.push({ kind: "reply", text: clip(b.text as string), at });
        if (b?.type === "toolCall") {
          const name = str(b.name) ?? "";
          const args = obj(b.arguments) ?? {};
          if (name === "bash") steps.push({ kind: "command", text: clip(str(args.command) ?? ""), at });
          else if (FILE_TOOLS.has(name)) {
            const file = str(args.path) ?? str(args.file_path) ?? "";
            steps.push({ kind: "file_change", text: `${name} ${file}`, path: file, at });
          } else if (name.includes("__") || name.startsWith("mcp")) steps.push({ kind: "mcp", text: clip(`${name} ${brief(args)}`), at });
        }
      }
      if (m.stopReason === "error" && str(m.errorMessage)) steps.push({ kind: "tool_failure", text: clip(m.errorMessage as string), at });
      break;
    case "toolResult":
      if (m.isError === true) steps.push({ kind: "tool_failure", text: clip(`${str(m.toolName) ?? "tool"}: ${contentText(m.content)}`), at });
      break;
    case "bashExecution": {
      const exit = num(m.exitCode);
      steps.push({ kind: "command", text: clip(str(m.command) ?? ""), at: at ?? iso(m.timestamp), ...(exit !== undefined ? { exitCode: exit } : {}) });
      break;
    }
  }
  return { at, steps };
};

function piSession(runtime: string, label: string, file: string, summary: Awaited<ReturnType<typeof summarizeJsonl>>, parent?: string): StoredSession {
  const fallback = /_([0-9a-f-]{36})\.jsonl$/.exec(file)?.[1] ?? path.basename(file, ".jsonl");
  if (parent) {
    return sessionFrom(runtime, file, summary, fallback, { subagentOf: parent, native: { ok: false, reason: `${label} cannot reopen a subagent transcript` } });
  }
  return sessionFrom(runtime, file, summary, fallback, { native: { ok: true, ref: file } });
}

export const piReader: StoreReading = {
  async list(ctx) {
    const files = await findFiles(ctx.dir, (n) => n.endsWith(".jsonl"), 1);
    return mapLimit(
      files,
      LIST_CONCURRENCY,
      async (f) => piSession("pi", "Pi", f, await summarizeJsonl(f, piInterpret)),
      (f, e) => ctx.warn(`Pi: cannot read ${f}: ${(e as Error).message}`),
    );
  },
  readSteps: (s, ctx, emit) => streamJsonlSteps(s.file, piInterpret, emit, ctx.warn),
};

export const primeReader: StoreReading = {
  async list(ctx) {
    const jobs: Array<{ file: string; parent?: string }> = (await findFiles(path.join(ctx.dir, "sessions"), (n) => n.endsWith(".jsonl"), 1)).map((file) => ({ file }));
    if (ctx.includeSubagents) {
      const artifacts = path.join(ctx.dir, "session-artifacts");
      for (const file of await findFiles(artifacts, (n) => n.endsWith(".jsonl"), 3)) {
        jobs.push({ file, parent: path.relative(artifacts, file).split(path.sep)[0] });
      }
    }
    return mapLimit(
      jobs,
      LIST_CONCURRENCY,
      async (j) => {
        const s = await summarizeJsonl(j.file, piInterpret);
        // A subagent's header carries its own id; the folder names the session that started it.
        return piSession("prime", "Prime Agent", j.file, s, j.parent);
      },
      (j, e) => ctx.warn(`Prime Agent: cannot read ${j.file}: ${(e as Error).message}`),
    );
  },
  readSteps: (s, ctx, emit) => streamJsonlSteps(s.file, piInterpret, emit, ctx.warn),
};

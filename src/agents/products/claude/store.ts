// Claude Code: `${CLAUDE_CONFIG_DIR:-~/.claude}/projects/<encoded cwd>/<sessionId>.jsonl`.
// The folder name is a lossy encoding of the cwd, so the cwd is read from the lines, never decoded.
// Subagents: `<enc>/<sessionId>/subagents/agent-*.jsonl`, or (older) `<enc>/agent-*.jsonl`.

import path from "node:path";
import type { SessionStep, StoreReading, StoredSession } from "../../stores/types.js";
import { entries, entryPath, findFiles, LIST_CONCURRENCY } from "../../stores/files.js";
import { mapNewestFirst } from "../../stores/newest.js";
import { type Interpret, type RecordInfo, sessionFrom, streamJsonlSteps, summarizeJsonl, TitleRank } from "../../stores/jsonl.js";
import { ToolCallLedger } from "../../stores/ledger.js";
import { arr, brief, clip, contentText, obj, str } from "../../stores/text.js";

/** User lines that are harness noise rather than something the person typed. */
const NOISE = /^\s*(<command-name>|<command-message>|<local-command-stdout>|<local-command-stderr>|<system-reminder>|Caveat: )/;
const FILE_TOOLS = new Set(["Edit", "Write", "MultiEdit", "NotebookEdit"]);

export function claudeToolStep(name: string, input: Record<string, unknown>, at?: string): SessionStep | undefined {
  if (name === "Bash") return { kind: "command", text: clip(str(input.command) ?? ""), at };
  if (FILE_TOOLS.has(name)) {
    const file = str(input.file_path) ?? str(input.notebook_path) ?? "";
    return { kind: "file_change", text: `${name} ${file}`, path: file, at };
  }
  if (name.startsWith("mcp__")) return { kind: "mcp", text: clip(`${name} ${brief(input)}`), at };
  return undefined; // reads, searches and planning tools are left out of briefs
}

/** A tool result that says the person refused the call (ACP adapter, terminal UI, `-p` mode wordings). */
const REFUSED = /refused permission|doesn't want to proceed|tool use was rejected|permission to use \S+ (?:has been|was) denied/i;

/** One transcript's reading: tool calls wait for their result, so a refused command is not reported as run. */
function newInterpret(): Interpret {
  const calls = new ToolCallLedger();
  const interpret: Interpret = (rec) => interpretRecord(rec, calls);
  interpret.flush = () => calls.unanswered();
  return interpret;
}

function interpretRecord(rec: Record<string, unknown>, calls: ToolCallLedger): RecordInfo | undefined {
  const at = str(rec.timestamp);
  const base: RecordInfo = { id: str(rec.sessionId), cwd: str(rec.cwd), branch: str(rec.gitBranch), at };
  switch (rec.type) {
    case "custom-title":
      return { title: str(rec.customTitle) ?? str(rec.title), titleRank: TitleRank.custom };
    case "ai-title":
      return { title: str(rec.aiTitle) ?? str(rec.title), titleRank: TitleRank.generated };
    case "last-prompt":
      return { title: str(rec.lastPrompt), titleRank: TitleRank.lastPrompt };
    case "summary":
      return { title: str(rec.summary), titleRank: TitleRank.summary };
    case "user": {
      const msg = obj(rec.message);
      const steps: SessionStep[] = [];
      if (typeof msg?.content === "string") {
        if (!rec.isMeta && !NOISE.test(msg.content)) steps.push({ kind: "prompt", text: clip(msg.content), at });
      } else {
        for (const block of arr(msg?.content)) {
          const b = obj(block);
          if (b?.type === "text" && typeof b.text === "string" && !rec.isMeta && !NOISE.test(b.text)) steps.push({ kind: "prompt", text: clip(b.text), at });
          if (b?.type === "tool_result") {
            const text = contentText(b.content);
            const refused = b.is_error === true && REFUSED.test(text);
            steps.push(...calls.answer(str(b.tool_use_id), refused ? "refused" : "ran"));
            if (b.is_error === true && !refused) steps.push({ kind: "tool_failure", text: clip(text), at });
          }
        }
      }
      return { ...base, steps };
    }
    case "assistant": {
      const steps: SessionStep[] = [];
      for (const block of arr(obj(rec.message)?.content)) {
        const b = obj(block);
        if (b?.type === "text" && typeof b.text === "string" && b.text.trim()) steps.push({ kind: "reply", text: clip(b.text), at });
        if (b?.type === "tool_use") {
          const step = claudeToolStep(str(b.name) ?? "", obj(b.input) ?? {}, at);
          if (step) steps.push(...calls.call(str(b.id), step));
        }
      }
      return { ...base, steps };
    }
    default:
      // Title fields have moved between record types across versions; accept them anywhere.
      if (str(rec.customTitle)) return { ...base, title: rec.customTitle as string, titleRank: TitleRank.custom };
      if (str(rec.aiTitle)) return { ...base, title: rec.aiTitle as string, titleRank: TitleRank.generated };
      return rec.sessionId ? base : undefined;
  }
}

const fresh = { fresh: newInterpret };

async function listFile(file: string, parentFromDir: string | undefined): Promise<StoredSession> {
  const summary = await summarizeJsonl(file, fresh);
  const base = path.basename(file, ".jsonl");
  if (base.startsWith("agent-")) {
    // A subagent's lines carry the parent's sessionId; its own id is the file name.
    const parent = parentFromDir ?? summary.id;
    return sessionFrom("claude", file, { ...summary, id: base }, base, {
      ...(parent ? { subagentOf: parent } : {}),
      native: { ok: false, reason: "Claude Code cannot reopen a subagent transcript" },
    });
  }
  return sessionFrom("claude", file, summary, base, { native: { ok: true } });
}

export const claudeReader: StoreReading = {
  async list(ctx) {
    const jobs: Array<{ file: string; parent?: string }> = [];
    for (const project of await entries(ctx.dir)) {
      if (!project.isDirectory()) continue;
      const pdir = path.join(ctx.dir, project.name);
      for (const ent of await entries(pdir)) {
        if (ent.isFile() && ent.name.endsWith(".jsonl")) {
          if (!ent.name.startsWith("agent-") || ctx.includeSubagents) jobs.push({ file: entryPath(pdir, ent.name) });
        } else if (ent.isDirectory() && ctx.includeSubagents) {
          const subs = await findFiles(path.join(pdir, ent.name, "subagents"), (n) => n.startsWith("agent-") && n.endsWith(".jsonl"), 0);
          for (const file of subs) jobs.push({ file, parent: ent.name });
        }
      }
    }
    return mapNewestFirst(
      ctx.newest,
      jobs,
      (j) => j.file,
      LIST_CONCURRENCY,
      (j) => listFile(j.file, j.parent),
      (j, err) => ctx.warn(`Claude Code: cannot read ${j.file}: ${(err as Error).message}`),
    );
  },
  readSteps: (session, ctx, emit) => streamJsonlSteps(session.file, newInterpret(), emit, ctx.warn),
};

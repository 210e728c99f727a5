// Codex CLI: `${CODEX_HOME:-~/.codex}/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`, lines
// `{timestamp, type, payload}`. Thread names live in `<CODEX_HOME>/session_index.jsonl`. A resumed
// thread can span several rollout files; it is listed once, under its newest file.

import path from "node:path";
import type { SessionStep, StoreReading, StoredSession } from "../../stores/types.js";
import { findFiles, LIST_CONCURRENCY, readSmallJsonl } from "../../stores/files.js";
import { mapNewestFirst } from "../../stores/newest.js";
import { type Interpret, sessionFrom, streamJsonlSteps, summarizeJsonl } from "../../stores/jsonl.js";
import { ToolCallLedger } from "../../stores/ledger.js";
import { arr, clip, num, obj, str, titleOf } from "../../stores/text.js";

/** File paths an apply_patch body touches. */
export function patchFiles(patch: string): string[] {
  const out: string[] = [];
  for (const m of patch.matchAll(/^\*\*\* (?:Update|Add|Delete) File: (.+)$/gm)) out.push(m[1].trim());
  return out;
}

function commandText(cmd: unknown): string {
  if (Array.isArray(cmd)) {
    // ["bash", "-lc", "npm test"] is how Codex wraps shell commands; show the script.
    const parts = cmd.map(String);
    return parts.length === 3 && /sh$/.test(parts[0]) && parts[1].startsWith("-") ? parts[2] : parts.join(" ");
  }
  return typeof cmd === "string" ? cmd : "";
}

function parentOf(source: unknown): string | undefined {
  const sub = obj(obj(source)?.subagent);
  if (!sub) return undefined;
  const spawn = obj(sub.thread_spawn);
  return str(spawn?.parent_thread_id) ?? str(sub.parent_thread_id) ?? "unknown";
}

/** An exec_command output that says the person declined the command. */
const REFUSED_OUTPUT = /aborted by user|rejected by (?:the )?user|declined by (?:the )?user/i;
const SHELL_CALLS = new Set(["exec_command", "shell", "shell_command", "local_shell"]);

function itemText(content: unknown): string {
  return arr(content)
    .map((c) => str(obj(c)?.text) ?? "")
    .filter(Boolean)
    .join("\n");
}

/**
 * One rollout's reading. Codex 0.171 records a turn as `item_completed` items (UserMessage,
 * AgentMessage, CommandExecution) next to the model's `response_item`s; older versions wrote
 * `user_message` / `agent_message` / `exec_command_end` events. Both are read. A command the model
 * asked for (`function_call exec_command`) counts once it ran (a CommandExecution item or an
 * output with an exit code); one the person declined is noted as rejected, never as run.
 */
function newInterpret(): Interpret {
  const calls = new ToolCallLedger();
  const interpret: Interpret = (rec) => {
    const at = str(rec.timestamp);
    const p = obj(rec.payload);
    if (!p) return undefined;
    if (rec.type === "session_meta") {
      return { id: str(p.id), cwd: str(p.cwd), branch: str(obj(p.git)?.branch), at, parent: parentOf(p.source) };
    }
    if (rec.type === "turn_context") return { cwd: str(p.cwd), at };
    const steps: SessionStep[] = [];
    if (rec.type === "event_msg") steps.push(...eventSteps(p, at, calls));
    else if (rec.type === "response_item") steps.push(...responseSteps(p, at, calls));
    return { at, steps };
  };
  interpret.flush = () => calls.unanswered();
  return interpret;
}

function eventSteps(p: Record<string, unknown>, at: string | undefined, calls: ToolCallLedger): SessionStep[] {
  switch (p.type) {
    case "user_message":
      return str(p.message) ? [{ kind: "prompt", text: clip(p.message as string), at }] : [];
    case "agent_message":
      return str(p.message) ? [{ kind: "reply", text: clip(p.message as string), at }] : [];
    case "item_completed": {
      const item = obj(p.item) ?? {};
      if (item.type === "UserMessage") return nonEmpty("prompt", itemText(item.content), at);
      if (item.type === "AgentMessage") return nonEmpty("reply", itemText(item.content), at);
      if (item.type === "CommandExecution") {
        calls.settle(str(item.id));
        return [commandStep(item.command, num(item.exit_code), at)];
      }
      return [];
    }
    case "exec_command_end":
      calls.settle(str(p.call_id));
      return [commandStep(p.command, num(p.exit_code), at)];
    case "mcp_tool_call_end": {
      const inv = obj(p.invocation);
      return [{ kind: "mcp", text: clip(`${str(inv?.server) ?? "mcp"}.${str(inv?.tool) ?? "tool"} ${JSON.stringify(inv?.arguments ?? {})}`), at }];
    }
    case "error":
      return [{ kind: "tool_failure", text: clip(str(p.message) ?? "error"), at }];
    default:
      return [];
  }
}

function responseSteps(p: Record<string, unknown>, at: string | undefined, calls: ToolCallLedger): SessionStep[] {
  const name = str(p.name);
  if ((p.type === "custom_tool_call" || p.type === "function_call") && name === "apply_patch") {
    const body = str(p.input) ?? str(obj(safeJson(str(p.arguments)))?.input) ?? "";
    return patchFiles(body).map((file) => ({ kind: "file_change", text: `apply_patch ${file}`, path: file, at }));
  }
  if (p.type === "function_call" && name && SHELL_CALLS.has(name)) {
    const args = obj(safeJson(str(p.arguments))) ?? {};
    return calls.call(str(p.call_id), commandStep(args.cmd ?? args.command, undefined, at));
  }
  if (p.type === "function_call_output" && calls.has(str(p.call_id))) {
    const output = typeof p.output === "string" ? p.output : JSON.stringify(p.output ?? "");
    const exit = /Process exited with code (-?\d+)/.exec(output)?.[1];
    return calls.answer(str(p.call_id), REFUSED_OUTPUT.test(output) ? "refused" : "ran", exit === undefined ? undefined : Number(exit));
  }
  return [];
}

function nonEmpty(kind: "prompt" | "reply", text: string, at: string | undefined): SessionStep[] {
  return text.trim() ? [{ kind, text: clip(text), at }] : [];
}

function commandStep(command: unknown, exitCode: number | undefined, at: string | undefined): SessionStep {
  return { kind: "command", text: clip(commandText(command)), at, ...(exitCode !== undefined ? { exitCode } : {}) };
}

const fresh = { fresh: newInterpret };
/** 0.171's first record holds the base instructions (~22 KB): read a head that includes it. */
const CODEX_HEAD_BYTES = 64 * 1024;

function safeJson(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Thread names from session_index.jsonl (the last entry per id wins); none when there is no index
 * yet, and titles fall back to the first prompt. One short line per thread: read at once.
 */
function threadNames(codexHome: string): Map<string, string> {
  const names = new Map<string, string>();
  for (const rec of readSmallJsonl(path.join(codexHome, "session_index.jsonl"))) {
    const id = str(rec.id);
    const name = str(rec.thread_name);
    if (id && name) names.set(id, name);
  }
  return names;
}

export const codexReader: StoreReading = {
  async list(ctx) {
    const files = await findFiles(ctx.dir, (n) => n.startsWith("rollout-") && n.endsWith(".jsonl"), 3);
    const names = threadNames(path.dirname(ctx.dir));
    const listed = await mapNewestFirst(
      ctx.newest,
      files,
      (file) => file,
      LIST_CONCURRENCY,
      async (file) => {
        const s = await summarizeJsonl(file, fresh, { headBytes: CODEX_HEAD_BYTES });
        const fallbackId = /([0-9a-f]{8}-[0-9a-f-]{27})\.jsonl$/.exec(file)?.[1] ?? path.basename(file, ".jsonl");
        const id = s.id ?? fallbackId;
        const name = names.get(id);
        const title = name ? titleOf(name) : s.title;
        return sessionFrom("codex", file, { ...s, title }, fallbackId, { native: { ok: true } });
      },
      (file, err) => ctx.warn(`Codex CLI: cannot read ${file}: ${(err as Error).message}`),
    );
    // One entry per thread, under its newest rollout file.
    const byId = new Map<string, StoredSession>();
    for (const s of listed) {
      const prev = byId.get(s.id);
      if (!prev || s.lastActivity > prev.lastActivity) byId.set(s.id, s);
    }
    return [...byId.values()].filter((s) => ctx.includeSubagents || !s.subagentOf);
  },
  readSteps: (session, ctx, emit) => streamJsonlSteps(session.file, newInterpret(), emit, ctx.warn),
};

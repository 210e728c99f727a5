// Codex CLI: `${CODEX_HOME:-~/.codex}/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`, lines
// `{timestamp, type, payload}`. Thread names live in `<CODEX_HOME>/session_index.jsonl`. A resumed
// thread can span several rollout files; it is listed once, under its newest file.

import path from "node:path";
import type { SessionStep, StoreReader, StoredSession } from "./types.js";
import { findFiles, forEachJsonLine, LIST_CONCURRENCY } from "./files.js";
import { mapNewestFirst } from "./newest.js";
import { type Interpret, type RecordInfo, sessionFrom, streamJsonlSteps, summarizeJsonl } from "./jsonl.js";
import { clip, num, obj, str, titleOf } from "./text.js";

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

const interpret: Interpret = (rec) => {
  const at = str(rec.timestamp);
  const p = obj(rec.payload);
  if (!p) return undefined;
  if (rec.type === "session_meta") {
    return { id: str(p.id), cwd: str(p.cwd), branch: str(obj(p.git)?.branch), at, parent: parentOf(p.source) };
  }
  if (rec.type === "turn_context") return { cwd: str(p.cwd), at };
  const steps: SessionStep[] = [];
  if (rec.type === "event_msg") {
    switch (p.type) {
      case "user_message":
        if (str(p.message)) steps.push({ kind: "prompt", text: clip(p.message as string), at });
        break;
      case "agent_message":
        if (str(p.message)) steps.push({ kind: "reply", text: clip(p.message as string), at });
        break;
      case "exec_command_end": {
        const exit = num(p.exit_code);
        steps.push({ kind: "command", text: clip(commandText(p.command)), at, ...(exit !== undefined ? { exitCode: exit } : {}) });
        break;
      }
      case "mcp_tool_call_end": {
        const inv = obj(p.invocation);
        steps.push({ kind: "mcp", text: clip(`${str(inv?.server) ?? "mcp"}.${str(inv?.tool) ?? "tool"} ${JSON.stringify(inv?.arguments ?? {})}`), at });
        break;
      }
      case "error":
        steps.push({ kind: "tool_failure", text: clip(str(p.message) ?? "error"), at });
        break;
    }
  } else if (rec.type === "response_item" && (p.type === "custom_tool_call" || p.type === "function_call") && p.name === "apply_patch") {
    const body = str(p.input) ?? str(obj(safeJson(str(p.arguments)))?.input) ?? "";
    for (const file of patchFiles(body)) steps.push({ kind: "file_change", text: `apply_patch ${file}`, path: file, at });
  }
  const info: RecordInfo = { at, steps };
  return info;
};

function safeJson(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Thread names from session_index.jsonl (the last entry per id wins). */
async function threadNames(codexHome: string): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  try {
    await forEachJsonLine(path.join(codexHome, "session_index.jsonl"), (rec) => {
      const id = str(rec.id);
      const name = str(rec.thread_name);
      if (id && name) names.set(id, name);
    });
  } catch {
    // No index yet: titles fall back to the first prompt.
  }
  return names;
}

export const codexReader: StoreReader = {
  runtime: "codex",
  label: "Codex CLI",
  defaultDir: (env, home) => path.join(env.CODEX_HOME || path.join(home, ".codex"), "sessions"),
  async list(ctx) {
    const files = await findFiles(ctx.dir, (n) => n.startsWith("rollout-") && n.endsWith(".jsonl"), 3);
    const names = await threadNames(path.dirname(ctx.dir));
    const listed = await mapNewestFirst(
      ctx.newest,
      files,
      (file) => file,
      LIST_CONCURRENCY,
      async (file) => {
        const s = await summarizeJsonl(file, interpret);
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
  readSteps: (session, ctx, emit) => streamJsonlSteps(session.file, interpret, emit, ctx.warn),
};

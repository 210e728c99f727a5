// fx (vercel-labs/fx): `~/.fx/sessions/<id>/events.jsonl` (append-only envelopes `{schema_version,
// log_generation, seq, event_id, timestamp_ms, kind, payload}`) and `session.json` (manifest:
// id, created_at_ms, updated_at_ms, workspace_root, …). A turn is one `history_turn_committed`
// event carrying the prompt, the tool steps with their results, and the files touched. fx records
// no title, so a session is listed under its first prompt, in the workspace fx last bound it to.
// Field names from Beacon's fx reader (Asymptote-Labs/agent-beacon, fxsession), read off fx's writers.

import path from "node:path";
import type { SessionStep, StoreReading } from "../../stores/types.js";
import { entries, exists, LIST_CONCURRENCY, mapLimit, readJsonFile } from "../../stores/files.js";
import { type Interpret, sessionFrom, streamJsonlSteps, summarizeJsonl } from "../../stores/jsonl.js";
import { arr, brief, clip, iso, num, obj, str } from "../../stores/text.js";

const SHELL_TOOLS = new Set(["run_command", "bash", "shell", "terminal"]);
const FILE_ACTIONS = new Set(["write", "edit", "delete", "rename", "copy"]);

/** fx writes bytes that are not UTF-8 as `{"encoding": "base64", "data": …}`. */
export function durable(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  const o = obj(v);
  if (o?.encoding === "base64" && typeof o.data === "string") return Buffer.from(o.data, "base64").toString("utf8");
  return undefined;
}

function args(call: Record<string, unknown>): Record<string, unknown> {
  try {
    return obj(JSON.parse(durable(call.arguments_json) ?? "{}")) ?? {};
  } catch {
    return {};
  }
}

function turnSteps(turn: Record<string, unknown>, at?: string): SessionStep[] {
  const steps: SessionStep[] = [];
  const prompt = durable(obj(turn.user)?.text);
  if (prompt?.trim()) steps.push({ kind: "prompt", text: clip(prompt), at });
  const exec = obj(turn.execution) ?? {};
  for (const rawStep of arr(exec.tool_steps)) {
    const step = obj(rawStep) ?? {};
    if (str(step.assistant)) steps.push({ kind: "reply", text: clip(step.assistant as string), at });
    const results = new Map(arr(step.tool_results).map((r) => [durable(obj(r)?.tool_call_id) ?? "", obj(r) ?? {}]));
    for (const rawCall of arr(step.tool_calls)) {
      const call = obj(rawCall) ?? {};
      const name = durable(call.name) ?? "";
      const result = results.get(durable(call.id) ?? "");
      const process = obj(result?.command_process_presentation);
      if (SHELL_TOOLS.has(name)) {
        const exit = process?.kind === "exit_code" ? num(process.value) : undefined;
        steps.push({ kind: "command", text: clip(str(args(call).command) ?? brief(args(call))), at, ...(exit !== undefined ? { exitCode: exit } : {}) });
      } else if (name.includes("__") || name.startsWith("mcp")) {
        steps.push({ kind: "mcp", text: clip(`${name} ${brief(args(call))}`), at });
      }
      if (result?.status === "failure") steps.push({ kind: "tool_failure", text: clip(`${name}: ${durable(result.output) ?? ""}`), at });
    }
  }
  for (const raw of arr(exec.files)) {
    const f = obj(raw) ?? {};
    const file = durable(f.path) ?? "";
    if (FILE_ACTIONS.has(str(f.action) ?? "") && f.status !== "failure") steps.push({ kind: "file_change", text: `${f.action} ${file}`, path: file, at });
  }
  const final = durable(turn.assistant);
  if (final?.trim()) steps.push({ kind: "reply", text: clip(final), at });
  if (turn.kind === "interrupted" && str(turn.terminal_reason)) steps.push({ kind: "tool_failure", text: `turn interrupted: ${turn.terminal_reason}`, at });
  return steps;
}

const interpret: Interpret = (rec) => {
  const at = iso(rec.timestamp_ms);
  const p = obj(rec.payload) ?? {};
  switch (rec.kind) {
    case "session_started":
      return { id: str(p.id), cwd: durable(p.workspace_root), at };
    case "workspace_rebound":
      return { cwd: durable(p.workspace_root), at };
    case "history_turn_committed":
      return obj(p.turn)?.kind === "compacted_summary" ? { at } : { at, steps: turnSteps(obj(p.turn) ?? {}, at) };
    default:
      return { at };
  }
};

export const fxReader: StoreReading = {
  async list(ctx) {
    const dirs: string[] = [];
    for (const ent of await entries(ctx.dir)) {
      if (ent.isDirectory() && (await exists(path.join(ctx.dir, ent.name, "events.jsonl")))) dirs.push(path.join(ctx.dir, ent.name));
    }
    return mapLimit(
      dirs,
      LIST_CONCURRENCY,
      async (dir) => {
        const file = path.join(dir, "events.jsonl");
        const s = await summarizeJsonl(file, interpret);
        const m = (await readJsonFile(path.join(dir, "session.json"))) ?? {};
        // The manifest names the workspace fx last bound the session to; fx looks the id up there.
        const cwd = durable(m.workspace_root) ?? s.cwd;
        const lastActivity = iso(m.updated_at_ms) ?? s.lastActivity;
        return sessionFrom("fx", file, { ...s, cwd, lastActivity }, str(m.id) ?? path.basename(dir), { native: { ok: true } });
      },
      (dir, e) => ctx.warn(`fx: cannot read ${dir}: ${(e as Error).message}`),
    );
  },
  readSteps: (s, ctx, emit) => streamJsonlSteps(s.file, interpret, emit, ctx.warn),
};

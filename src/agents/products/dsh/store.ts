// DeepSeek Harness: `${DSH_SESSION_ROOT:-$DSH_HOME/sessions}/--<project key of cwd>--/<id>/session.jsonl`,
// or `session.jsonl.zstd` with one zstd frame per write batch. Line 1 is `{type: "session", id,
// cwd, createdAt}`; then events `{type, seq, time, data}`: `user/message`, `assistant/message`,
// `tool/result`, and packed streaming chunks (skipped: the messages carry the full text).
// Layout from a third-party reader observed on dsh 0.1.1-rc.2; see docs/session-stores.md.

import { readFileSync } from "node:fs";
import path from "node:path";
import * as zlib from "node:zlib";
import type { SessionStep, StoreReading, StoredSession } from "../../stores/types.js";
import { dshSessionRoot } from "./locations.js";
import { findFiles, LIST_CONCURRENCY, mapLimit } from "../../stores/files.js";
import { type Interpret, type RecordInfo, sessionFrom, streamJsonlSteps, summarizeJsonl, summarizeLines } from "../../stores/jsonl.js";
import { genericInterpret, toolStep } from "../grok/store.js";
import { arr, brief, clip, iso, obj, str } from "../../stores/text.js";

const ZSTD_MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd]);
type ZstdDecompress = (buf: Buffer) => Buffer;
/** Node ≥ 22.15 has zstd in zlib; Node 20 does not, and compressed sessions are then skipped. */
const zstdDecompressSync = (zlib as unknown as { zstdDecompressSync?: ZstdDecompress }).zstdDecompressSync;

/** Decompresses every zstd frame (the runtime appends one per write batch). */
export function decompressFrames(buf: Buffer, decompress: ZstdDecompress): string {
  const starts: number[] = [];
  for (let i = buf.indexOf(ZSTD_MAGIC); i !== -1; i = buf.indexOf(ZSTD_MAGIC, i + 4)) starts.push(i);
  let out = "";
  starts.forEach((from, k) => {
    try {
      out += decompress(buf.subarray(from, starts[k + 1] ?? buf.length)).toString("utf8");
    } catch {
      // A torn last frame (the runtime was killed mid-write) is skipped like a torn line.
    }
  });
  return out;
}

const interpret: Interpret = (rec) => {
  const at = iso(rec.time) ?? iso(rec.createdAt);
  const data = obj(rec.data) ?? {};
  const steps: SessionStep[] = [];
  switch (rec.type) {
    case "session":
      return {
        id: str(rec.id),
        cwd: str(rec.cwd),
        at,
        parent: str(rec.parentSessionId) ?? str(rec.parent_session_id) ?? str(obj(rec.delegation)?.parentSessionId),
        meta: { ...(str(rec.forkedFrom) || str(rec.forkOf) ? { fork: "1" } : {}) },
      } satisfies RecordInfo;
    case "user/message":
      for (const b of arr(data.content)) if (obj(b)?.type === "text" && str(obj(b)?.text)) steps.push({ kind: "prompt", text: clip(obj(b)!.text as string), at });
      if (typeof data.content === "string") steps.push({ kind: "prompt", text: clip(data.content), at });
      return { at, steps };
    case "assistant/message":
      for (const raw of arr(data.content)) {
        const b = obj(raw) ?? {};
        if (b.type === "text" && str(b.text)) steps.push({ kind: "reply", text: clip(b.text as string), at });
        if (b.type === "tool-call" || b.type === "tool_use" || b.type === "toolCall") {
          const step = toolStep(str(b.name) ?? str(b.toolName) ?? "", obj(b.input) ?? obj(b.args) ?? obj(b.arguments) ?? {}, at);
          if (step) steps.push(step);
        }
      }
      return { at, steps };
    case "tool/result":
      if (data.isError === true || data.is_error === true) steps.push({ kind: "tool_failure", text: clip(brief(data.content ?? data.output ?? "tool failed")), at });
      return { at, steps };
    case "text-chunks":
    case "reasoning-chunks":
    case "tool-call-chunks":
      return { at };
    default:
      return genericInterpret(rec);
  }
};

function decodedLines(file: string): string[] {
  if (!zstdDecompressSync) throw new Error("compressed DeepSeek Harness sessions need Node.js 22.15 or later (zstd)");
  return decompressFrames(readFileSync(file), zstdDecompressSync)
    .split("\n")
    .filter((l) => l.trim());
}

export const dshReader: StoreReading = {
  async list(ctx) {
    const files = await findFiles(dshSessionRoot(ctx), (n) => n.endsWith(".jsonl") || n.endsWith(".jsonl.zstd"), 2);
    const listed = await mapLimit(
      files,
      LIST_CONCURRENCY,
      async (file): Promise<StoredSession> => {
        const zst = file.endsWith(".zstd");
        const s = zst ? summarizeLines(decodedLines(file), interpret, file) : await summarizeJsonl(file, interpret);
        const fallback = path.basename(file).startsWith("session.jsonl") ? path.basename(path.dirname(file)) : path.basename(file, ".jsonl");
        // A delegated run names the session that started it; a fork is a session of its own.
        const parent = s.meta.fork ? undefined : s.parent;
        return sessionFrom("dsh", file, { ...s, parent }, fallback, {
          native: { ok: false, reason: "DeepSeek Harness has no interactive session to reopen" },
          ...(zst ? { extra: { ...s.meta, zstd: "1" } } : {}),
        });
      },
      (file, err) => ctx.warn(`DeepSeek Harness: cannot read ${file}: ${(err as Error).message}`),
    );
    return listed.filter((s) => ctx.includeSubagents || !s.subagentOf);
  },
  async readSteps(session, ctx, emit) {
    if (session.extra?.zstd) {
      for (const line of decodedLines(session.file)) {
        try {
          for (const step of interpret(JSON.parse(line) as Record<string, unknown>)?.steps ?? []) emit(step);
        } catch {
          // torn line
        }
      }
      return;
    }
    await streamJsonlSteps(session.file, interpret, emit, ctx.warn);
  },
};

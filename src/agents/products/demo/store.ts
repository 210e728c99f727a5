// Baton's bundled ACP demo agent: `<dataDir>/demo-agent/sessions/<sessionId>.jsonl`.
// Line 1 is `{type: "meta", sessionId, cwd, createdAt, title}`; then prompt / reply / tool events.

import path from "node:path";
import type { StoreReading } from "../../stores/types.js";
import { findFiles, mapLimit, LIST_CONCURRENCY } from "../../stores/files.js";
import { type Interpret, sessionFrom, streamJsonlSteps, summarizeJsonl, TitleRank } from "../../stores/jsonl.js";
import { clip, str } from "../../stores/text.js";

const interpret: Interpret = (rec) => {
  const at = str(rec.at);
  switch (rec.type) {
    case "meta":
      return { id: str(rec.sessionId), cwd: str(rec.cwd), at: str(rec.createdAt), title: str(rec.title), titleRank: TitleRank.custom };
    case "prompt":
      return { at, steps: [{ kind: "prompt", text: clip(str(rec.text) ?? ""), at }] };
    case "reply":
      return { at, steps: [{ kind: "reply", text: clip(str(rec.text) ?? ""), at }] };
    case "tool": {
      const failed = rec.status === "failed";
      return { at, steps: [{ kind: failed ? "tool_failure" : "mcp", text: clip(str(rec.title) ?? "tool"), at }] };
    }
    default:
      return undefined;
  }
};

export const demoReader: StoreReading = {
  async list(ctx) {
    const files = await findFiles(ctx.dir, (n) => n.endsWith(".jsonl"), 0);
    return mapLimit(
      files,
      LIST_CONCURRENCY,
      async (file) =>
        sessionFrom("demo", file, await summarizeJsonl(file, interpret), path.basename(file, ".jsonl"), {
          native: { ok: false, reason: "the demo agent has no terminal command; continue it in another runtime with --agent" },
        }),
      (file, err) => ctx.warn(`demo: cannot read ${file}: ${(err as Error).message}`),
    );
  },
  readSteps: (session, ctx, emit) => streamJsonlSteps(session.file, interpret, emit, ctx.warn),
};

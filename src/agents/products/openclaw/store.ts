// OpenClaw Gateway: `${OPENCLAW_STATE_DIR:-~/.openclaw}/agents/<agent>/sessions/`, holding
// `sessions.json` (session key → {sessionId, updatedAt, label, displayName, spawnedBy, …}) and one
// JSONL transcript per session (`<sessionId>.jsonl`, `<sessionId>-topic-<thread>.jsonl`) in Pi's
// format. Transcript ids are unique only within one agent. Sessions kept only in the newer
// per-agent SQLite database are not read.

import path from "node:path";
import type { StoreReading, StoredSession } from "../../stores/types.js";
import { entries, findFiles, LIST_CONCURRENCY, mapLimit, readJsonFile } from "../../stores/files.js";
import { sessionFrom, streamJsonlSteps, summarizeJsonl } from "../../stores/jsonl.js";
import { piInterpret } from "../pi/store.js";
import { iso, obj, str, titleOf } from "../../stores/text.js";

interface IndexEntry {
  key: string;
  label?: string;
  updatedAt?: string;
  spawnedBy?: string;
}

/** sessions.json inverted: transcript id → its key and metadata. */
async function readIndex(file: string): Promise<{ byId: Map<string, IndexEntry>; idByKey: Map<string, string> }> {
  const byId = new Map<string, IndexEntry>();
  const idByKey = new Map<string, string>();
  const raw = (await readJsonFile(file)) ?? {};
  for (const [key, value] of Object.entries(raw)) {
    const v = obj(value);
    const id = str(v?.sessionId);
    if (!v || !id) continue;
    idByKey.set(key, id);
    const prev = byId.get(id);
    // Prefer an agent-qualified key: only those can be reopened through the Gateway.
    if (prev?.key.startsWith("agent:") && !key.startsWith("agent:")) continue;
    byId.set(id, { key, label: str(v.label) ?? str(v.displayName) ?? str(v.subject), updatedAt: iso(v.updatedAt), spawnedBy: str(v.spawnedBy) });
  }
  return { byId, idByKey };
}

export const openclawReader: StoreReading = {
  async list(ctx) {
    const out: StoredSession[] = [];
    for (const agent of await entries(path.join(ctx.dir, "agents"))) {
      if (!agent.isDirectory()) continue;
      const dir = path.join(ctx.dir, "agents", agent.name, "sessions");
      const { byId, idByKey } = await readIndex(path.join(dir, "sessions.json"));
      const files = await findFiles(dir, (n) => n.endsWith(".jsonl"), 0);
      const listed = await mapLimit(
        files,
        LIST_CONCURRENCY,
        async (file) => {
          const s = await summarizeJsonl(file, piInterpret);
          const id = path.basename(file, ".jsonl").replace(/-topic-.*$/, "");
          const entry = byId.get(id);
          // Subagents name the key that spawned them; resolve it to that session's transcript id.
          const parentKey = entry?.spawnedBy;
          const parent = parentKey ? (idByKey.get(parentKey) ?? parentKey) : entry?.key.includes(":subagent:") ? "(unknown)" : undefined;
          const qualified = entry?.key.startsWith(`agent:${agent.name}:`) ?? false;
          const native = qualified
            ? { ok: true, ref: entry?.key }
            : { ok: false, reason: `sessions.json files it under no agent-qualified key (agent:${agent.name}:…), so the Gateway cannot reopen it` };
          return sessionFrom("openclaw", file, { ...s, title: entry?.label ? titleOf(entry.label) : s.title, lastActivity: s.lastActivity ?? entry?.updatedAt }, id, {
            id,
            ...(parent ? { subagentOf: parent } : {}),
            native,
            extra: { agent: agent.name, ...(entry ? { key: entry.key } : {}) },
          });
        },
        (f, e) => ctx.warn(`OpenClaw: cannot read ${f}: ${(e as Error).message}`),
      );
      out.push(...listed);
    }
    return out;
  },
  readSteps: (s, ctx, emit) => streamJsonlSteps(s.file, piInterpret, emit, ctx.warn),
};

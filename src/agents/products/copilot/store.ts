// GitHub Copilot CLI: `${COPILOT_HOME:-~/.copilot}/session-state/<id>/events.jsonl` with
// `workspace.yaml` (id, cwd, branch, summary, created_at, updated_at) beside it; older builds wrote
// `session-state/<id>.jsonl`. Events: `{type, id, timestamp, parentId, data}`.

import { promises as fs } from "node:fs";
import path from "node:path";
import type { SessionStep, StoreReading } from "../../stores/types.js";
import { entries, LIST_CONCURRENCY, mapLimit } from "../../stores/files.js";
import { type Interpret, sessionFrom, streamJsonlSteps, summarizeJsonl } from "../../stores/jsonl.js";
import { brief, clip, obj, str, titleOf } from "../../stores/text.js";

const SHELL_TOOLS = new Set(["bash", "shell", "powershell"]);
const FILE_TOOLS = new Set(["edit", "create", "str_replace_editor", "write", "str_replace"]);

/** The flat `key: value` lines of workspace.yaml (all this reader needs of it). */
export async function readWorkspaceYaml(file: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  try {
    for (const line of (await fs.readFile(file, "utf8")).split("\n")) {
      const m = /^([A-Za-z_]+):\s*(.*)$/.exec(line);
      if (m?.[2]) out[m[1]] = m[2].replace(/^(["'])(.*)\1$/, "$2");
    }
  } catch {
    // Older sessions have no workspace.yaml.
  }
  return out;
}

const interpret: Interpret = (rec) => {
  const at = str(rec.timestamp);
  const d = obj(rec.data) ?? {};
  const steps: SessionStep[] = [];
  switch (rec.type) {
    case "session.start": {
      const c = obj(d.context) ?? {};
      return { id: str(d.sessionId), cwd: str(c.cwd), branch: str(c.branch), at };
    }
    case "user.message":
      if (str(d.content)) steps.push({ kind: "prompt", text: clip(d.content as string), at });
      break;
    case "assistant.message":
      if (str(d.content)) steps.push({ kind: "reply", text: clip(d.content as string), at });
      break;
    case "tool.execution_start": {
      const name = str(d.toolName) ?? "";
      const args = obj(d.arguments) ?? {};
      if (SHELL_TOOLS.has(name)) steps.push({ kind: "command", text: clip(str(args.command) ?? ""), at });
      else if (FILE_TOOLS.has(name)) {
        const file = str(args.path) ?? str(args.file_path) ?? "";
        steps.push({ kind: "file_change", text: `${name} ${file}`, path: file, at });
      } else if (str(d.mcpServerName) || name.includes("-")) steps.push({ kind: "mcp", text: clip(`${name} ${brief(args)}`), at });
      break;
    }
    case "tool.execution_complete":
      if (d.success === false) steps.push({ kind: "tool_failure", text: clip(str(obj(d.result)?.content) ?? str(obj(d.error)?.message) ?? "tool failed"), at });
      break;
    case "session.error":
      steps.push({ kind: "tool_failure", text: clip(str(d.message) ?? "error"), at });
      break;
  }
  return { at, steps };
};

export const copilotReader: StoreReading = {
  async list(ctx) {
    const root = path.join(ctx.dir, "session-state");
    const jobs: Array<{ file: string; id: string; yaml?: string }> = [];
    for (const ent of await entries(root)) {
      if (ent.isDirectory()) jobs.push({ id: ent.name, file: path.join(root, ent.name, "events.jsonl"), yaml: path.join(root, ent.name, "workspace.yaml") });
      else if (ent.isFile() && ent.name.endsWith(".jsonl")) jobs.push({ id: path.basename(ent.name, ".jsonl"), file: path.join(root, ent.name) });
    }
    return mapLimit(
      jobs,
      LIST_CONCURRENCY,
      async (j) => {
        const s = await summarizeJsonl(j.file, interpret);
        const ws = j.yaml ? await readWorkspaceYaml(j.yaml) : {};
        const merged = {
          ...s,
          cwd: ws.cwd ?? s.cwd,
          branch: ws.branch ?? s.branch,
          title: ws.summary ? titleOf(ws.summary) : s.title,
          lastActivity: s.lastActivity ?? ws.updated_at,
        };
        return sessionFrom("copilot", j.file, merged, ws.id ?? j.id, { native: { ok: true } });
      },
      (j, e) => ctx.warn(`GitHub Copilot CLI: cannot read ${j.file}: ${(e as Error).message}`),
    );
  },
  readSteps: (s, ctx, emit) => streamJsonlSteps(s.file, interpret, emit, ctx.warn),
};

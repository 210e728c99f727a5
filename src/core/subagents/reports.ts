// What the subagent tools answer: text the agent reads, and the same facts as data.
import type { ToolReply } from "../tool-calls.js";
import { isSubagentFinished, type SubagentRecord } from "./records.js";

export interface ReportInput {
  record: SubagentRecord;
  lastTool?: string;
}

function reportData({ record: s, lastTool }: ReportInput): Record<string, unknown> {
  const finished = isSubagentFinished(s);
  return {
    name: s.name,
    agent: s.agent,
    profile: s.profile ?? null,
    mode: s.mode,
    state: s.state,
    finished,
    session_id: s.session ?? null,
    round: s.round,
    rounds: s.rounds,
    last_tool: lastTool ?? null,
    note: s.note ?? null,
    report: finished ? { message: s.messages.at(-1) ?? "", files: s.files, branch: s.branch ?? null } : null,
  };
}

function reportText({ record: s, lastTool }: ReportInput): string {
  const session = s.session ? `, session ${s.session}` : "";
  const head = `## ${s.name} — ${s.state}${s.state === "interrupted" && s.recovery === "failed" ? " (could not be resumed)" : ""} (${s.agent}${s.profile ? `+${s.profile}` : ""}${session})`;
  const lines = [head];
  if (s.note) lines.push(`Note: ${s.note}`);
  if (!isSubagentFinished(s)) {
    const where = s.rounds > 1 ? `round ${s.round} of ${s.rounds}` : "";
    const tool = lastTool ? `last tool: ${lastTool}` : "";
    const detail = [where, tool].filter(Boolean).join(", ");
    if (detail) lines.push(`Still ${s.state}: ${detail}.`);
    return lines.join("\n");
  }
  if (s.branch) lines.push(`Branch: ${s.branch} (its changes, committed; merge it to take them)`);
  else if (s.isolation === "worktree") lines.push("Branch: none (it changed nothing)");
  if (s.files.length > 0) lines.push(`Files changed: ${s.files.join(", ")}`);
  const message = s.messages.at(-1);
  lines.push("", message?.trim() || "(no final message)");
  return lines.join("\n");
}

export function waitReply(items: ReportInput[], timedOut: boolean): ToolReply {
  const finished = items.filter((i) => isSubagentFinished(i.record)).length;
  const all = finished === items.length;
  const summary = all
    ? `${finished} of ${items.length} subagent${items.length === 1 ? "" : "s"} finished.`
    : `${finished} of ${items.length} finished${timedOut ? " before the wait timed out" : ""}; call wait_for_subagents again for the others.`;
  return {
    text: [summary, ...items.map(reportText)].join("\n\n"),
    data: { finished, total: items.length, all_finished: all, subagents: items.map(reportData) },
  };
}

export function initializeReply(items: ReportInput[], mode: string): ToolReply {
  const names = items.map((i) => `${i.record.name} (${i.record.agent})`).join(", ");
  return {
    text:
      `Started ${items.length} subagent${items.length === 1 ? "" : "s"} in ${mode} mode: ${names}. ` +
      "Those beyond the limit of running agents wait their turn. Call wait_for_subagents to collect their reports.",
    data: { mode, subagents: items.map(reportData) },
  };
}

export function cancelReply(items: ReportInput[]): ToolReply {
  return {
    text: items.length === 0 ? "No subagent was queued or running." : `Cancelled: ${items.map((i) => `${i.record.name} (${i.record.state})`).join(", ")}.`,
    data: { subagents: items.map(reportData) },
  };
}

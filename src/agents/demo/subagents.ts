// The demo agent and subagents, both sides, so every path is testable with no real agent:
// - as a thread's agent: `demo:subagents [json]` calls Baton's initialize_subagents (default: mode
//   parallel, `alpha` and `beta` each told to answer their task) and wait_for_subagents until all
//   ended, then answers with their reports; `demo:subagents:permission` does the same but beta asks
//   a permission first; `demo:mcp <tool> [json]` makes one tool call and shows its answer.
// - as a subagent (its prompt starts with Baton's mark): answers its task, after what the task
//   asks for: `demo:permission` (a permission request), `demo:write` (writes <name>.txt where it
//   works), `demo:slow` (works for 30 s, `demo:slow=N` for N half-second steps, until cancelled);
//   in a later collaboration round it says which reports it read.
import type * as acp from "@agentclientprotocol/sdk";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolCaller } from "./mcp.js";
import { sleep } from "./sleep.js";

/** What a demo turn can do, supplied by the agent. */
export interface DemoTurn {
  say(text: string): Promise<void>;
  /** Shows a tool call while `work` runs; `content` is attached when it completes. */
  tool<T>(title: string, kind: acp.ToolKind, work: () => Promise<T>, content?: acp.ToolCallContent[]): Promise<T>;
  permission(command: string): Promise<string>;
  signal: AbortSignal;
  cwd: string;
}

const SUBAGENT_MARK = "[Baton subagent]";
const WAIT_S = 30;
const SLOW_STEPS = 60;
const SLOW_STEP_MS = 500;
/** Each tool call may wait this long (a wait is at most WAIT_S on Baton's side). */
const TOOL_TIMEOUT_MS = (WAIT_S + 60) * 1000;

const DEFAULT_SUBAGENTS = {
  mode: "parallel",
  subagents: [
    { name: "alpha", task: "Name a colour" },
    { name: "beta", task: "Name a fruit" },
  ],
};

export function isSubagentPrompt(text: string): boolean {
  return text.startsWith(SUBAGENT_MARK);
}

export function isHostSubagentCommand(text: string): boolean {
  return /^demo:(subagents|mcp)(\s|:|$)/.test(text);
}

/** `demo:subagents…` and `demo:mcp…` as the thread's agent. */
export async function hostTurn(turn: DemoTurn, text: string, tools: ToolCaller | undefined): Promise<acp.StopReason> {
  if (!tools) {
    await turn.say("No MCP server was given to this session, so I cannot reach Baton's subagent tools.");
    return "end_turn";
  }
  try {
    return await useTools(turn, text, tools);
  } catch (error) {
    if (turn.signal.aborted) return "cancelled";
    await turn.say(`Baton's MCP server failed: ${(error as Error).message}`);
    return "end_turn";
  }
}

async function useTools(turn: DemoTurn, text: string, tools: ToolCaller): Promise<acp.StopReason> {
  const call = (name: string, args: Record<string, unknown>) => turn.tool(`${name}`, "other", () => tools(name, args, { signal: turn.signal, timeoutMs: TOOL_TIMEOUT_MS }));
  const mcp = /^demo:mcp\s+(\S+)\s*([\s\S]*)$/.exec(text);
  if (mcp) {
    const result = await call(mcp[1], parseArgs(mcp[2]));
    await turn.say(`${mcp[1]}${result.isError ? " error" : ""}: ${result.text}`);
    return "end_turn";
  }
  const json = /^demo:subagents(?::permission)?\s*([\s\S]*)$/.exec(text)?.[1] ?? "";
  const args: Record<string, unknown> = json.trim() ? parseArgs(json) : structuredClone(DEFAULT_SUBAGENTS);
  if (text.startsWith("demo:subagents:permission"))
    args.subagents = [
      { name: "alpha", task: "Name a colour" },
      { name: "beta", task: "demo:permission Name a fruit" },
    ];
  const started = await call("initialize_subagents", args);
  if (started.isError) {
    await turn.say(`initialize_subagents error: ${started.text}`);
    return "end_turn";
  }
  let result = started;
  do {
    if (turn.signal.aborted) return "cancelled";
    result = await call("wait_for_subagents", { timeout_s: WAIT_S });
  } while (!result.isError && result.data.all_finished !== true);
  if (turn.signal.aborted) return "cancelled";
  if (result.isError) {
    await turn.say(`wait_for_subagents error: ${result.text}`);
    return "end_turn";
  }
  const lines = (result.data.subagents as Array<{ name: string; state: string; report: { message: string; branch: string | null; files: string[] } | null; note: string | null }>).map((s) => {
    const branch = s.report?.branch ? ` [branch ${s.report.branch}; files ${s.report.files.join(", ")}]` : "";
    return `- ${s.name} (${s.state}): ${s.report?.message || s.note || "no report"}${branch}`;
  });
  await turn.say(`Subagent reports:\n${lines.join("\n")}`);
  return "end_turn";
}

function parseArgs(text: string): Record<string, unknown> {
  if (!text.trim()) return {};
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { _unparsed: text };
  }
}

interface SubagentPrompt {
  name: string;
  task: string;
  others: Array<{ name: string; text: string }>;
  resumed: boolean;
}

/** The parts of Baton's subagent prompt (its headings are fixed). */
function parseSubagentPrompt(text: string): SubagentPrompt {
  const name = /You are "([^"]+)"/.exec(text)?.[1] ?? "subagent";
  const section = (heading: RegExp) => {
    const m = heading.exec(text);
    if (!m) return undefined;
    const rest = text.slice(m.index + m[0].length);
    const end = rest.search(/\n## /);
    return (end === -1 ? rest : rest.slice(0, end)).trim();
  };
  const task = section(/\n## Task\n/) ?? "";
  const reports = section(/\n## Reports of the other subagents, round \d+\n/) ?? "";
  const others = [...reports.matchAll(/### (\S+)\n([\s\S]*?)(?=\n### |\n\nTake them into account|$)/g)].map((m) => ({ name: m[1], text: m[2].trim() }));
  return { name, task, others, resumed: /\n## Resumed\n/.test(text) };
}

/** A subagent's turn: what the task asks for, then the report. */
export async function subagentTurn(turn: DemoTurn, text: string): Promise<acp.StopReason> {
  const p = parseSubagentPrompt(text);
  const notes: string[] = [];
  const slow = /demo:slow(?:=(\d+))?/.exec(p.task);
  if (slow && !p.resumed) {
    const steps = slow[1] ? Number(slow[1]) : SLOW_STEPS;
    for (let step = 1; step <= steps; step++) {
      if (turn.signal.aborted) return "cancelled";
      await turn.tool(`Working, step ${step}`, "think", () => sleep(SLOW_STEP_MS, turn.signal));
    }
  }
  if (p.task.includes("demo:permission")) {
    const answer = await turn.permission(`touch ${p.name}.txt`);
    if (answer === "cancelled") return "cancelled";
    notes.push(`permission ${answer}`);
  }
  if (p.task.includes("demo:write")) {
    const path = join(turn.cwd, `${p.name}.txt`);
    const content = `written by ${p.name}\n`;
    await turn.tool(`Write ${p.name}.txt`, "edit", async () => writeFileSync(path, content), [{ type: "diff", path, oldText: null, newText: content }]);
    notes.push(`wrote ${p.name}.txt`);
  }
  if (turn.signal.aborted) return "cancelled";
  const task = p.task.replace(/demo:[\w=]+\s*/g, "").trim();
  const read = p.others.length > 0 ? ` I read ${p.others.map((o) => `${o.name}'s report “${o.text}”`).join(" and ")}.` : "";
  const extra = [p.resumed ? "resumed" : "", ...notes].filter(Boolean);
  await turn.say(`${p.name} answers “${task}”${extra.length ? ` (${extra.join(", ")})` : ""}.${read}`);
  return "end_turn";
}

// The subagent tools as the core offers them: a thread's agent starts named subagents, waits for
// their reports and cancels them. Their schemas are here; src/mcp/ serves them. Only agents Baton
// runs for a chat thread see them (their token names the thread).
import { z } from "zod";
import { SUBAGENT_MODES, type SubagentMode } from "./records.js";
import type { McpCaller, ToolReply } from "../tool-calls.js";

const SUBAGENT_TOOL_NAMES = ["initialize_subagents", "wait_for_subagents", "cancel_subagents"] as const;
export type SubagentToolName = (typeof SUBAGENT_TOOL_NAMES)[number];

export const MAX_WAIT_S = 3_600;
const MAX_ROUNDS = 5;

export const initializeSubagentsShape = {
  mode: z
    .enum(SUBAGENT_MODES)
    .describe(
      "parallel: independent tasks at once. collaboration: rounds, and from the second round on each subagent also gets the others' reports of the round before. " +
        "brainstorming: the same question (`task`) to all, answers collected side by side.",
    ),
  subagents: z
    .array(
      z.object({
        name: z.string().describe("A short name, unique on this thread: letters, digits, - and _ (alpha, reviewer-2)."),
        task: z.string().optional().describe("What this subagent should do; it works alone in its own session, so say everything it needs. Optional in brainstorming mode."),
        agent: z.string().optional().describe("Agent kind to run it with (claude, codex, gemini, …); default: the same as yours."),
        profile: z.string().optional().describe("A Baton agent profile of that kind (optional)."),
      }),
    )
    .min(1)
    .describe("The subagents to start."),
  task: z.string().optional().describe("brainstorming: the question every subagent answers. Other modes: context given to every subagent before its own task."),
  isolation: z
    .enum(["shared", "worktree"])
    .optional()
    .describe("shared (default): all work in this workspace. worktree: each in its own git worktree on a branch of its own (parallel edits without conflicts; the report names the branch to merge)."),
  rounds: z.number().int().min(1).max(MAX_ROUNDS).optional().describe("collaboration: how many rounds (default 2)."),
};

export const waitForSubagentsShape = {
  names: z.array(z.string()).optional().describe("The subagents to wait for; default: all of this thread's."),
  timeout_s: z.number().positive().max(MAX_WAIT_S).optional().describe("Give up waiting after this many seconds (default 45) and report who is still running; call again to keep waiting."),
};

export const cancelSubagentsShape = {
  names: z.array(z.string()).optional().describe("The subagents to cancel; default: every one still queued or running."),
};

export interface InitializeSubagentsArgs {
  mode: SubagentMode;
  subagents: Array<{ name: string; task?: string; agent?: string; profile?: string }>;
  task?: string;
  isolation?: "shared" | "worktree";
  rounds?: number;
}
export type WaitForSubagentsArgs = { names?: string[]; timeout_s?: number };
export type CancelSubagentsArgs = { names?: string[] };

/** What runs the subagent tools (the conversation core). `caller` names the thread; `signal` ends a wait when the agent went away. */
export interface SubagentTools {
  initialize(args: InitializeSubagentsArgs, caller: McpCaller): Promise<ToolReply>;
  wait(args: WaitForSubagentsArgs, caller: McpCaller, signal?: AbortSignal): Promise<ToolReply>;
  cancel(args: CancelSubagentsArgs, caller: McpCaller): Promise<ToolReply>;
}

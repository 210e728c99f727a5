// Subagents as the thread registry keeps them: what a thread's agent started through Baton's MCP
// tools, their sessions, states and reports. Events add them and update them; the listing of a
// thread holds the subagents of its current multi-agent turn and those of earlier turns that had
// not finished when it began.
//
// Why this file is here, in the core: a subagent is one folder (core/subagents/: the MCP tools,
// the plan, the jobs, the chat's view, and these records). The thread store (threads/, below the
// core) persists these events and replays them, so it imports this file, and only this one: it
// imports nothing of ours but the kernel, which the import test (test/layers) checks, so the
// layers still point one way file by file.

import { z } from "zod";

export const SUBAGENT_MODES = ["parallel", "collaboration", "brainstorming"] as const;
export type SubagentMode = (typeof SUBAGENT_MODES)[number];

const SUBAGENT_STATES = ["queued", "running", "done", "failed", "cancelled", "interrupted"] as const;
export type SubagentState = (typeof SUBAGENT_STATES)[number];

/** States a subagent never leaves (an interrupted one may still be resumed, see `recovery`). */
const FINAL_STATES: ReadonlySet<SubagentState> = new Set(["done", "failed", "cancelled"]);

/** A stored report message is cut here: the agent's own session keeps the whole of it. */
export const MAX_STORED_MESSAGE_CHARS = 16_000;
export const MAX_STORED_FILES = 200;

export interface SubagentAddedBody {
  type: "subagent_added";
  /** The multi-agent turn it belongs to. */
  run: string;
  name: string;
  agent: string;
  profile?: string;
  mode: SubagentMode;
  task: string;
  /** Context the thread's agent gave all of them, besides each one's task. */
  context?: string;
  /** Rounds it runs (collaboration: each round sees the others' reports of the round before). */
  rounds: number;
  isolation?: "worktree";
}

export interface SubagentUpdatedBody {
  type: "subagent_updated";
  name: string;
  state?: SubagentState;
  session?: string;
  /** The round now running (1-based). */
  round?: number;
  /** Set once a round finished: its final message (the report, after the last round). */
  message?: { round: number; text: string };
  files?: string[];
  worktree?: { path: string; branch: string; base: string; cwd: string };
  /** The worktree was removed; the branch stays when it holds changes (else undefined). */
  worktreeRemoved?: { branch?: string };
  /** Why it failed, was cancelled or could not be resumed. */
  note?: string;
  /** An interrupted subagent: "pending" until the thread's host is rebuilt, "failed" when it could not be resumed. */
  recovery?: "pending" | "failed";
}

export type SubagentEventBody = SubagentAddedBody | SubagentUpdatedBody;

/** A subagent as the thread knows it: what it was started with, and where it is now. */
export interface SubagentRecord extends Omit<SubagentAddedBody, "type"> {
  state: SubagentState;
  session?: string;
  round: number;
  /** Final message of each finished round, by round (index 0 = round 1). */
  messages: string[];
  files: string[];
  worktree?: { path: string; branch: string; base: string; cwd: string };
  /** The branch left with its changes once the worktree was removed. */
  branch?: string;
  note?: string;
  recovery?: "pending" | "failed";
  updatedAt: string;
}

/** True when nothing more will happen to it: finished, or interrupted and not resumable. */
export function isSubagentFinished(s: Pick<SubagentRecord, "state" | "recovery">): boolean {
  return FINAL_STATES.has(s.state) || (s.state === "interrupted" && s.recovery === "failed");
}

/** Applies one subagent event to a thread's listing (the same at runtime and at replay). */
export function applySubagentEvent(list: SubagentRecord[], body: SubagentEventBody, at: string): SubagentRecord[] {
  if (body.type === "subagent_added") {
    // A new multi-agent turn: the finished subagents of earlier turns leave the listing.
    const kept = list.filter((s) => s.run === body.run || !isSubagentFinished(s)).filter((s) => s.name !== body.name);
    const { type: _type, ...started } = body;
    kept.push({
      ...started,
      state: "queued",
      round: 1,
      messages: [],
      files: [],
      updatedAt: at,
    });
    return kept;
  }
  const s = list.find((x) => x.name === body.name);
  if (!s) return list;
  if (body.state) {
    s.state = body.state;
    if (body.state !== "interrupted") s.recovery = undefined;
  }
  if (body.session) s.session = body.session;
  if (body.round) s.round = body.round;
  if (body.message) s.messages[body.message.round - 1] = body.message.text;
  if (body.files) s.files = body.files;
  if (body.worktree) s.worktree = body.worktree;
  if (body.worktreeRemoved) {
    s.worktree = undefined;
    s.branch = body.worktreeRemoved.branch;
  }
  if (body.note !== undefined) s.note = body.note;
  if (body.recovery) s.recovery = body.recovery;
  s.updatedAt = at;
  return list;
}

/** The subagent events as they must look on disk, over the fields every event has (`base`). */
export function subagentEventSchemas<B extends z.ZodRawShape>(base: B) {
  const text = z.string().min(1);
  const worktree = z.object({ path: text, branch: text, base: text, cwd: text });
  return [
    z.object({
      ...base,
      type: z.literal("subagent_added"),
      run: text,
      name: text,
      agent: text,
      profile: z.string().optional(),
      mode: z.enum(SUBAGENT_MODES),
      task: text,
      context: z.string().optional(),
      rounds: z.number().int().positive(),
      isolation: z.literal("worktree").optional(),
    }),
    z.object({
      ...base,
      type: z.literal("subagent_updated"),
      name: text,
      state: z.enum(SUBAGENT_STATES).optional(),
      session: text.optional(),
      round: z.number().int().positive().optional(),
      message: z.object({ round: z.number().int().positive(), text: z.string() }).optional(),
      files: z.array(z.string()).optional(),
      worktree: worktree.optional(),
      worktreeRemoved: z.object({ branch: z.string().optional() }).optional(),
      note: z.string().optional(),
      recovery: z.enum(["pending", "failed"]).optional(),
    }),
  ] as const;
}

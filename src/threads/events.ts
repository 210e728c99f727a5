// The events of the thread registry. Each line of the log is one event; the registry is what
// replaying them in order gives. Bump EVENT_SCHEMA_VERSION when an event's meaning changes.
import { randomBytes } from "node:crypto";
import { randomHex } from "../kernel/random-ids.js";
import { z } from "zod";
import { subagentEventSchemas, type SubagentEventBody } from "../core/subagents/records.js";
import type { StoredSchedule, TurnUsage } from "./chat-state.js";
import { auditEventSchema, type AuditBody } from "./audit.js";

const EVENT_SCHEMA_VERSION = 1;

const text = z.string().min(1);
const base = { v: z.number().int().positive(), id: text, at: z.iso.datetime(), thread: text };

const count = z.number().nonnegative().optional();
const TURN_USAGE = z.object({
  inputTokens: count,
  outputTokens: count,
  totalTokens: count,
  cost: z.object({ amount: z.number(), currency: text }).optional(),
  context: z.object({ used: z.number().nonnegative(), size: z.number().nonnegative() }).optional(),
});
const STORED_SCHEDULE = z.object({ id: text, route: text, cron: text, prompt: text, timeZone: z.string().optional(), createdBy: text, createdAt: z.iso.datetime() });

/** Every event as it must look on disk; a line that does not match is skipped at replay. */
const EVENT_SCHEMA = z.discriminatedUnion("type", [
  z.object({
    ...base,
    type: z.literal("thread_created"),
    workspace: text,
    agent: text,
    profile: z.string().optional(),
    session: z.string().optional(),
    origin: z.string().optional(),
    binding: z.string().optional(),
  }),
  z.object({ ...base, type: z.literal("route_attached"), route: text }),
  z.object({ ...base, type: z.literal("route_detached"), route: text }),
  z.object({ ...base, type: z.literal("session_observed"), session: text }),
  z.object({ ...base, type: z.literal("host_changed"), agent: text, profile: z.string().optional() }),
  z.object({ ...base, type: z.literal("thread_closed"), reason: z.string() }),
  z.object({ ...base, type: z.literal("context_transfer"), fromRuntime: text, fromSession: text, briefPath: text }),
  z.object({ ...base, type: z.literal("workspace_registered"), path: text, name: z.string().optional(), confirmed_by: z.string().optional() }),
  z.object({ ...base, type: z.literal("prompt_queued"), queued: text, prompt: z.array(z.unknown()) }),
  z.object({ ...base, type: z.literal("prompt_taken"), queued: text, why: z.enum(["started", "dropped"]) }),
  z.object({ ...base, type: z.literal("worktree_created"), path: text, branch: text, base: text, base_branch: text, repository: text, cwd: text, topic: z.string().optional() }),
  z.object({ ...base, type: z.literal("worktree_removed"), branch_deleted: z.boolean() }),
  z.object({ ...base, type: z.literal("settings_changed"), mode: text.optional(), model: text.optional() }),
  z.object({ ...base, type: z.literal("usage_recorded"), usage: TURN_USAGE, session: z.string().optional() }),
  z.object({ ...base, type: z.literal("schedule_added"), schedule: STORED_SCHEDULE }),
  z.object({ ...base, type: z.literal("schedule_removed"), scheduleId: text }),
  auditEventSchema(base),
  ...subagentEventSchemas(base),
]);

interface EventBase {
  v: number;
  id: string;
  /** ISO time the event was recorded. */
  at: string;
  thread: string;
}

export type ThreadEventBody =
  /** `binding`: the config binding (its match) that chose the workspace and agent. */
  | { type: "thread_created"; workspace: string; agent: string; profile?: string; session?: string; origin?: string; binding?: string }
  | { type: "route_attached"; route: string }
  | { type: "route_detached"; route: string }
  | { type: "session_observed"; session: string }
  | { type: "host_changed"; agent: string; profile?: string }
  | { type: "thread_closed"; reason: string }
  | { type: "context_transfer"; fromRuntime: string; fromSession: string; briefPath: string }
  /** A directory outside the configured roots that a terminal handover made a workspace (kept across restarts). */
  | { type: "workspace_registered"; path: string; name?: string; confirmed_by?: string }
  | { type: "prompt_queued"; queued: string; prompt: unknown[] }
  | { type: "prompt_taken"; queued: string; why: "started" | "dropped" }
  /**
   * The thread's own git worktree (workspaces.isolation: worktree), on a machine like its workspace:
   * `repository` is the main checkout's top, `base` the commit it branched from on `base_branch`,
   * `cwd` where its agent works (the workspace's place inside the worktree), `topic` the first line
   * of its first prompt (the default title of /pr).
   */
  | { type: "worktree_created"; path: string; branch: string; base: string; base_branch: string; repository: string; cwd: string; topic?: string }
  /** The worktree is gone (/close); the branch too when `branch_deleted` (/close --discard). */
  | { type: "worktree_removed"; branch_deleted: boolean }
  /** The mode or model chosen in chat; applied again whenever the session is opened on a new host. */
  | { type: "settings_changed"; mode?: string; model?: string }
  | { type: "usage_recorded"; usage: TurnUsage; session?: string }
  | { type: "schedule_added"; schedule: StoredSchedule }
  | { type: "schedule_removed"; scheduleId: string }
  /** Who did what (audit.ts): dropped once older than audit.keep. */
  | ({ type: "audit" } & AuditBody)
  | SubagentEventBody;

export type ThreadEvent = EventBase & ThreadEventBody;

/** The event a parsed log line holds, or why it is not one (for the replay report). */
export function parseThreadEvent(value: unknown): { event: ThreadEvent } | { problem: string } {
  const result = EVENT_SCHEMA.safeParse(value);
  if (result.success) return { event: value as ThreadEvent };
  const fields = [...new Set(result.error.issues.map((i) => i.path.join(".") || "the line itself"))];
  return { problem: `not a valid event (${fields.join(", ")}: ${result.error.issues[0].message.toLowerCase()})` };
}

/** Random bits in an event id: the database refuses a duplicate id (and the batch it came in), and a
 * burst makes thousands in one millisecond, so 32 bits collided (about one run in 700 of a test making 12,000 events). */
const EVENT_ID_RANDOM_BYTES = 8;

/** `ev_` + the time in base 36 (ids sort by time) + 64 random bits. */
function newEventId(): string {
  return `ev_${Date.now().toString(36)}${randomHex(EVENT_ID_RANDOM_BYTES)}`;
}

export function newThreadId(): string {
  return `th_${randomBytes(6).toString("hex")}`;
}

export function makeEvent(thread: string, body: ThreadEventBody, now: Date = new Date()): ThreadEvent {
  return { v: EVENT_SCHEMA_VERSION, id: newEventId(), at: now.toISOString(), thread, ...body } as ThreadEvent;
}

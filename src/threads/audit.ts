// Audit events as the event log keeps them: who did what, when, in which thread. They live in the
// same durable log as the threads (the JSONL file, or PostgreSQL with store.url), are dropped by
// compaction once older than audit.keep, and are read back by `baton audit` (filters below).
import { z } from "zod";
import type { ThreadEvent } from "./events.js";

export interface AuditUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  /** This turn's cost, where the agent reports one. */
  cost?: { amount: number; currency: string };
}

export interface AuditBody {
  /** access (someone not allowed), command (a role decision), approval, turn, limit (a prompt or subagents over one), pickup, workspace_proposal. */
  action: string;
  /** refused, allowed, done, cancelled, failed, the chosen option's kind (allow_once), expired (an approval no one answered), … */
  outcome: string;
  platform?: string;
  /** The platform-qualified user id (`slack:U0ABC`). */
  user?: string;
  /** The person the user is (access.people), else the user id. */
  person?: string;
  /** Their display name at the time. */
  name?: string;
  route?: string;
  session?: string;
  agent?: string;
  workspace?: string;
  /** The command (`/schedule add …`) or, for an approval, what the agent asked to run. */
  command?: string;
  /** The role the person had, and the one the action needed. */
  role?: string;
  needed?: string;
  /** Whose prompt started the turn an approval belongs to. */
  requester?: string;
  detail?: string;
  usage?: AuditUsage;
  /** How long a turn ran. */
  ms?: number;
}

const optional = z.string().optional();
const count = z.number().nonnegative().optional();

export function auditEventSchema<T extends z.ZodRawShape>(base: T) {
  return z.object({
    ...base,
    type: z.literal("audit"),
    action: z.string().min(1),
    outcome: z.string(),
    platform: optional,
    user: optional,
    person: optional,
    name: optional,
    route: optional,
    session: optional,
    agent: optional,
    workspace: optional,
    command: optional,
    role: optional,
    needed: optional,
    requester: optional,
    detail: optional,
    usage: z.object({ inputTokens: count, outputTokens: count, totalTokens: count, cost: z.object({ amount: z.number(), currency: z.string() }).optional() }).optional(),
    ms: count,
  });
}

export type AuditEvent = Extract<ThreadEvent, { type: "audit" }>;

export interface AuditFilter {
  /** Only events at or after this time (ms since the epoch). */
  since?: number;
  thread?: string;
  /**
   * A person (access.people) or a user id: events recorded as them, or by an account the config
   * now says is theirs (`personOf`, for events recorded before it said so).
   */
  person?: { key: string; personOf(userId: string): string };
}

export function matchesAudit(event: AuditEvent, filter: AuditFilter): boolean {
  if (filter.since !== undefined && !(Date.parse(event.at) >= filter.since)) return false;
  if (filter.thread !== undefined && event.thread !== filter.thread) return false;
  const person = filter.person;
  if (person && event.person !== person.key && event.user !== person.key && !(event.user !== undefined && person.personOf(event.user) === person.key)) return false;
  return true;
}

/** An approval's outcomes when no one answered it: its turn ended first, or someone stopped it. */
const UNANSWERED = new Set(["expired", "cancelled"]);

/** Who acted, short: the person (or their name) with the account, when that says more. */
function whoOf(body: AuditBody): string {
  const label = body.person && body.person !== body.user ? body.person : body.name;
  if (label && body.user && label !== body.user) return `${label} (${body.user})`;
  return body.person ?? body.user ?? "-";
}

function usageText(body: AuditBody): string {
  const parts: string[] = [];
  if (body.ms !== undefined) parts.push(body.ms < 60_000 ? `${Math.round(body.ms / 1000)} s` : `${Math.round(body.ms / 60_000)} min`);
  const u = body.usage;
  const tokens = u?.totalTokens ?? (u?.inputTokens !== undefined || u?.outputTokens !== undefined ? (u?.inputTokens ?? 0) + (u?.outputTokens ?? 0) : undefined);
  if (tokens !== undefined) parts.push(`${tokens.toLocaleString("en-US")} tokens`);
  if (u?.cost) {
    // Cents for a dollar or more; two significant digits below (a turn often costs a fraction of a cent).
    const amount = u.cost.amount >= 1 ? u.cost.amount.toFixed(2) : String(Number(u.cost.amount.toPrecision(2)));
    parts.push(u.cost.currency === "USD" ? `$${amount}` : `${amount} ${u.cost.currency}`);
  }
  return parts.join(", ");
}

/** One event in plain words, without its time: `ana (slack:U0A) turn done in th_… (claude, ~/api): 12 s, 1,200 tokens, $0.03`. */
export function describeAudit(body: AuditBody, thread: string): string {
  const who = whoOf(body);
  const where = thread !== "-" ? ` in ${thread}` : body.route ? ` in ${body.route}` : "";
  switch (body.action) {
    case "access":
      return `${who} was refused${where}: not allowed to use Baton${body.detail ? ` (${body.detail})` : ""}`;
    case "command":
      return `${who} ${body.command ?? "a command"}${where}: ${body.outcome === "refused" ? `refused, needs ${body.needed ?? "another role"} (is ${body.role ?? "no one here"})` : `${body.outcome} (${body.role ?? "?"})`}`;
    case "approval": {
      const asked = `${body.agent ? `${body.agent}'s ` : ""}"${body.command ?? "a tool call"}"`;
      const turnOf = body.requester && body.requester !== body.user ? ` (turn of ${body.requester})` : "";
      if (body.outcome === "refused") return `${who} may not answer ${asked}${where}${turnOf}`;
      // Recorded as the requester's (whose turn asked), or no one's for a turn no one in the chat started.
      if (UNANSWERED.has(body.outcome)) return `${who}: ${asked}${where} ${body.outcome} unanswered${body.detail ? ` (${body.detail})` : ""}`;
      return `${who} answered "${body.detail ?? body.outcome}" to ${asked}${where}${turnOf}`;
    }
    case "limit":
      return `${who} was held by a limit${where}: ${body.detail ?? "over a limit"}`;
    case "turn": {
      const usage = usageText(body);
      return `${who} turn ${body.outcome}${where}${body.agent ? ` (${body.agent}${body.workspace ? `, ${body.workspace}` : ""})` : ""}${usage ? `: ${usage}` : ""}${body.detail ? ` — ${body.detail}` : ""}`;
    }
    default:
      return `${who} ${body.action} ${body.outcome}${where}${body.detail ? `: ${body.detail}` : ""}`;
  }
}

// The audit trail: every access refusal, role decision, approval answer, pickup and turn goes
// through here into the durable event log (read back by `baton audit`), and into the log as one
// line. Text that could carry a secret (a command line, an error) is scrubbed and cut first; who
// acted is written as the person (access.people) as well as the platform user.
import type { TurnOutput } from "../agents/supervisor.js";
import type { PlatformLogger, PlatformUser } from "../platforms/contract.js";
import { redactSecrets } from "../kernel/secrets.js";
import { describeAudit, type AuditBody, type AuditUsage } from "../threads/audit.js";
import type { TurnUsage } from "../threads/chat-state.js";
import type { ThreadRecord, ThreadRegistry } from "../threads/registry.js";
import type { EndedRound } from "./subagents/jobs.js";
import type { ApprovalAnswer } from "./approvals.js";
import { withFinish } from "./turn.js";

/** A command line or an error is kept to this many characters. */
const MAX_TEXT_CHARS = 300;

export interface AuditTrailDeps {
  registry: Pick<ThreadRegistry, "audit" | "get" | "threadForRoute">;
  log: PlatformLogger;
  /** The person a platform user is (access.people), else their id. */
  personOf(userId: string): string;
}

/** How a turn ended, as the supervisor reports it. */
interface TurnEnd {
  stopReason?: string;
  error?: string;
}

export class AuditTrail {
  constructor(private readonly deps: AuditTrailDeps) {}

  /**
   * Records an event under its thread (else the thread its route is attached to, else none); rejects
   * when it could not be written (callers that must know wait for it).
   */
  record(body: AuditBody, thread?: string): Promise<void> {
    const threadId = thread ?? (body.route && this.deps.registry.threadForRoute(body.route)?.id) ?? "-";
    const full = this.complete(body, threadId);
    this.deps.log.info({ audit: full.action, outcome: full.outcome, user: full.user, route: full.route, thread: threadId === "-" ? undefined : threadId }, `audit: ${describeAudit(full, threadId)}`);
    return this.deps.registry.audit(full, threadId);
  }

  /** Records an event without waiting: a failed write is logged, never in the way of the chat. */
  note(body: AuditBody, threadId?: string): void {
    this.record(body, threadId).catch((error: unknown) => this.deps.log.warn({ err: error, audit: body.action }, "could not record an audit event"));
  }

  /** Who someone is, for an event: their id, person, name and platform. */
  who(user: PlatformUser | undefined): Pick<AuditBody, "user" | "person" | "name" | "platform"> {
    if (!user) return {};
    const platform = user.id.includes(":") ? user.id.slice(0, user.id.indexOf(":")) : user.id;
    return { user: user.id, person: this.deps.personOf(user.id), name: user.name, platform };
  }

  /** An answer to an approval request; one that ended unanswered (expired, cancelled) is the requester's: who asked, and what became of it. */
  approval(answer: ApprovalAnswer): void {
    this.note(
      {
        action: "approval",
        outcome: answer.outcome,
        ...this.who(answer.user ?? answer.requester),
        route: answer.route,
        command: answer.asked,
        requester: answer.requester?.id,
        detail: answer.option ?? answer.why,
      },
      answer.threadId,
    );
  }

  /** A subagent's round: a turn of the person whose prompt started the thread's turn, under the subagent's name. */
  subagentRound(round: EndedRound, usd: number | undefined): void {
    const tokens = round.result.usage.tokens;
    const { stopReason } = round.result;
    this.note(
      {
        action: "turn",
        outcome: stopReason === "cancelled" ? "cancelled" : "done",
        ...this.who(round.requester),
        agent: round.agent,
        workspace: round.workspace,
        session: round.session,
        usage: { inputTokens: tokens?.inputTokens, outputTokens: tokens?.outputTokens, totalTokens: tokens?.totalTokens, cost: usd === undefined ? undefined : { amount: usd, currency: "USD" } },
        ms: round.ms,
        detail: `subagent ${round.subagent}${stopReason !== "end_turn" && stopReason !== "cancelled" ? ` (${stopReason})` : ""}`,
      },
      round.threadId,
    );
  }

  /** A turn's audit: its usage as the agent reports it, and one event when it ends. */
  beginTurn(thread: ThreadRecord, author: PlatformUser | undefined): TurnAudit {
    return new TurnAudit(this, thread, author);
  }

  private complete(body: AuditBody, threadId: string): AuditBody {
    const thread = threadId === "-" ? undefined : this.deps.registry.get(threadId);
    return {
      ...body,
      person: body.person ?? (body.user ? this.deps.personOf(body.user) : undefined),
      agent: body.agent ?? thread?.agent,
      workspace: body.workspace ?? thread?.workspace,
      session: body.session ?? thread?.session,
      command: scrubbed(body.command),
      detail: scrubbed(body.detail),
    };
  }
}

export class TurnAudit {
  private readonly startedAt = Date.now();
  private used?: AuditUsage;

  constructor(
    private readonly trail: AuditTrail,
    private readonly thread: ThreadRecord,
    private readonly author: PlatformUser | undefined,
  ) {}

  /** The turn's usage as the agent reported it, and what it cost in dollars (limits/spend.ts works it out). */
  usage(usage: TurnUsage, usd: number | undefined): void {
    this.used = { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, totalTokens: usage.totalTokens, cost: usd === undefined ? undefined : { amount: usd, currency: "USD" } };
  }

  end(outcome: TurnEnd): void {
    const ended = outcome.error ? "failed" : outcome.stopReason === "cancelled" ? "cancelled" : "done";
    const detail = outcome.error ?? (outcome.stopReason && outcome.stopReason !== "end_turn" && outcome.stopReason !== "cancelled" ? outcome.stopReason : undefined);
    this.trail.note(
      {
        action: "turn",
        outcome: ended,
        ...this.trail.who(this.author),
        agent: this.thread.agent,
        workspace: this.thread.workspace,
        usage: this.used,
        ms: Date.now() - this.startedAt,
        detail: detail ?? (this.author ? undefined : "started by no one in the chat (a schedule, or a prompt carried over a restart)"),
      },
      this.thread.id,
    );
  }
}

/** The same turn, recorded when it ends (after its usage, which the end of the turn records first). */
export function auditedTurn(turn: TurnOutput, audit: TurnAudit): TurnOutput {
  return withFinish(turn, async (outcome) => {
    try {
      await turn.finish(outcome);
    } finally {
      audit.end(outcome);
    }
  });
}

function scrubbed(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const clean = redactSecrets(text);
  return clean.length > MAX_TEXT_CHARS ? `${clean.slice(0, MAX_TEXT_CHARS - 1)}…` : clean;
}

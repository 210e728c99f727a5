// Permission requests from agents, shown in every attached route and answered by the first person
// approvals.by lets decide (a button, `/allow`, `/deny`, or the option's number): by default the
// person whose prompt started the turn, or an admin; anyone else is told privately who may, and
// the request stays open. Never auto-allowed, never timed out
// into "allow". A request belongs to the live turn that asked it: when that turn ends (finished,
// cancelled, the agent died), its open requests answer "cancelled" and their messages say so, so
// a later answer can never reach a request nobody is waiting for; the audit trail hears of each
// as it hears of an answer. A typed answer answers the oldest open request of the thread.
import { randomBytes } from "node:crypto";
import type { PermissionOption, RequestPermissionRequest, RequestPermissionResponse } from "@agentclientprotocol/sdk";
import type { ActionOutcome, Button, OutboundMessage, PlatformUser } from "../platforms/contract.js";
import type { MessageSlot } from "./delivery/slot.js";
import type { RouteTarget, TurnStream } from "./stream.js";

const APPROVAL_ACTION_PREFIX = "ap:";
/** A command quoted in a one-line notice is cut here (the request's own message shows it whole). */
const ASKED_FOR_MAX_CHARS = 120;

/** The turn a request belongs to. */
export interface ApprovalTurn {
  id: string;
  threadId: string;
  stream: TurnStream;
  /** Shown above the request, e.g. the name of the subagent that asks. */
  label?: string;
  /** Whose prompt started the turn; none for a turn no one in the chat started (a schedule, a carried prompt). */
  requester?: PlatformUser;
}

type ApprovalsBy = "requester_or_admin" | "requester" | "any_member";

/** Who may decide: the config's rule (read at each answer, so a reload applies) and who is an admin. */
export interface ApprovalPolicy {
  by(): ApprovalsBy;
  isAdmin(userId: string, route: string): boolean;
}

/** An answer as the audit trail records it: who, which request, and what they chose or why they may not. */
export interface ApprovalAnswer {
  threadId: string;
  /** Who answered; none when the request ended unanswered (expired, cancelled). */
  user?: PlatformUser;
  /** Where they answered; for a request that ended unanswered, the first route it was shown on. */
  route?: string;
  /** What the agent asked to do: its command, else the tool call's title. */
  asked: string;
  requester?: PlatformUser;
  /** The option's kind (allow_once, reject_always, …), `refused` when this person may not decide, or how it ended unanswered. */
  outcome: string;
  /** The option's name, as the buttons show it. */
  option?: string;
  /** Why it ended unanswered. */
  why?: string;
}

/** How open requests end unanswered: what the audit trail records, and the line their messages show. */
export interface Unanswered {
  outcome: "expired" | "cancelled";
  note: string;
  why?: string;
}

/** Someone stopped the turn (or its round) the request belongs to. */
export const CANCELLED: Unanswered = { outcome: "cancelled", note: "⏹ Cancelled" };

/** The request can no longer be answered, for `why`. */
export function expired(why: string): Unanswered {
  return { outcome: "expired", note: `⌛ Expired: ${why}`, why };
}

/** What a typed answer did: `refused` when the person may not decide (the text is for them only). */
export interface TypedAnswer {
  text: string;
  refused?: boolean;
}

interface Pending {
  id: string;
  turn: ApprovalTurn;
  request: RequestPermissionRequest;
  resolve: (response: RequestPermissionResponse) => void;
  /** The request's message on each route. */
  posted: Array<RouteTarget & { slot: MessageSlot }>;
}

export class ApprovalBroker {
  /** Open requests in the order they were asked (Map order). */
  private readonly pending = new Map<string, Pending>();

  /** Without a policy (tests of the broker alone) any allowed person decides. */
  constructor(
    private readonly policy: ApprovalPolicy = { by: () => "any_member", isAdmin: () => false },
    /** Hears every answer and every refused one (the audit trail). */
    private readonly answered: (answer: ApprovalAnswer) => void = () => undefined,
  ) {}

  /** Shows the request on every route of the turn and waits for an answer. */
  request(turn: ApprovalTurn, request: RequestPermissionRequest): Promise<RequestPermissionResponse> {
    const id = randomBytes(6).toString("base64url");
    return new Promise((resolve) => {
      const entry: Pending = { id, turn, request, resolve, posted: [] };
      this.pending.set(id, entry);
      entry.posted = turn.stream.post((target) => renderRequest(entry, target.outbox.adapter.capabilities.buttons));
    });
  }

  pendingCount(threadId: string): number {
    let n = 0;
    for (const p of this.pending.values()) if (p.turn.threadId === threadId) n++;
    return n;
  }

  isApprovalAction(actionId: string): boolean {
    return actionId.startsWith(APPROVAL_ACTION_PREFIX);
  }

  /** A button press: `ap:<id>:<option index>`. */
  answerAction(actionId: string, user: PlatformUser, route: string): ActionOutcome {
    const [, id, index] = actionId.split(":");
    const entry = this.pending.get(id ?? "");
    if (!entry) return { ok: false, text: "This request was already answered or has expired." };
    const option = entry.request.options[Number(index)];
    if (!option) return { ok: false, text: "Unknown option." };
    const refused = this.refused(entry, user, route);
    // Shown only to the presser (the platform's alert or ephemeral); the request stays open.
    if (refused) return { ok: false, text: refused };
    this.decide(entry, option, user, route);
    return { ok: true, text: option.name };
  }

  /**
   * A typed answer on a thread: `/allow`, `/deny`, or a number, for its oldest open request.
   * Returns undefined when the thread has no open request or the text is no answer (it goes on
   * to the agent), "" when it answered, or a hint when the answer named no option.
   */
  answerText(threadId: string, text: string, user: PlatformUser, route: string): TypedAnswer | undefined {
    const entry = [...this.pending.values()].find((p) => p.turn.threadId === threadId);
    if (!entry) return undefined;
    const options = entry.request.options;
    const word = text.trim().toLowerCase();
    let option: PermissionOption | undefined;
    if (word === "/allow") option = options.find((o) => o.kind === "allow_once") ?? options.find((o) => o.kind.startsWith("allow"));
    else if (word === "/deny") option = options.find((o) => o.kind === "reject_once") ?? options.find((o) => o.kind.startsWith("reject"));
    else if (/^\d+$/.test(word)) option = options[Number(word) - 1];
    else return undefined;
    const refused = this.refused(entry, user, route);
    if (refused) return { text: refused, refused: true };
    if (!option) return { text: `No such option. Answer with a number from 1 to ${options.length}, /allow or /deny.` };
    this.decide(entry, option, user, route);
    return { text: "" };
  }

  /** The refusal for someone who may not decide (the audit trail hears of it); undefined when they may. */
  private refused(entry: Pending, user: PlatformUser, route: string): string | undefined {
    const refusal = this.refusal(entry, user, route);
    if (refusal) this.answered(answerOf(entry, user, route, "refused"));
    return refusal;
  }

  /** Why this person may not decide the request, naming who may; undefined when they may. */
  private refusal(entry: Pending, user: PlatformUser, route: string): string | undefined {
    const by = this.policy.by();
    if (by === "any_member") return undefined;
    const requester = entry.turn.requester;
    if (requester?.id === user.id) return undefined;
    // A turn no one in the chat started is decided by an admin under either rule.
    const adminMay = by === "requester_or_admin" || !requester;
    if (adminMay && this.policy.isAdmin(user.id, route)) return undefined;
    // Plain words, no markup: a button's refusal shows as the platform's alert (Telegram's is plain text).
    const who = requester ? `${requester.name ?? requester.id} (${requester.id}), who started this turn${adminMay ? ", or an admin" : ""}` : "an admin";
    return `Only ${who} may answer this request; you are ${user.id}. It stays open.`;
  }

  /** The turn ended or was cancelled: each of its open requests answers "cancelled", says why, and is audited. */
  endTurn(turnId: string, ending: Unanswered = CANCELLED): void {
    for (const entry of [...this.pending.values()]) {
      if (entry.turn.id !== turnId) continue;
      this.pending.delete(entry.id);
      entry.resolve({ outcome: { outcome: "cancelled" } });
      this.answered({ threadId: entry.turn.threadId, route: entry.posted[0]?.route, asked: askedOf(entry), requester: entry.turn.requester, outcome: ending.outcome, why: ending.why });
      this.showDecision(entry, ending.note);
    }
  }

  /** Every open request of a thread ends so (Baton shutting down cancels its turn). */
  endThread(threadId: string, ending: Unanswered): void {
    const turns = new Set([...this.pending.values()].filter((p) => p.turn.threadId === threadId).map((p) => p.turn.id));
    for (const turnId of turns) this.endTurn(turnId, ending);
  }

  private decide(entry: Pending, option: PermissionOption, user: PlatformUser, route: string): void {
    // The first answer wins: removed before anything else happens.
    if (!this.pending.delete(entry.id)) return;
    entry.resolve({ outcome: { outcome: "selected", optionId: option.optionId } });
    this.answered({ ...answerOf(entry, user, route, option.kind), option: option.name });
    const mark = option.kind.startsWith("allow") ? "✅" : "🚫";
    this.showDecision(entry, `${mark} ${option.name} — by ${user.name ?? user.id}`);
  }

  private showDecision(entry: Pending, decision: string): void {
    const message: OutboundMessage = { text: `${describe(entry)}\n\n**${decision}**`, kind: "approval" };
    for (const { outbox, route, slot } of entry.posted) {
      // Where messages cannot be edited, the decision follows as a message of its own.
      if (outbox.adapter.capabilities.edits) slot.update(message);
      else outbox.post(route, { ...message, text: `**${decision}**` });
    }
  }
}

function answerOf(entry: Pending, user: PlatformUser, route: string, outcome: string): ApprovalAnswer {
  return { threadId: entry.turn.threadId, user, route, asked: askedOf(entry), requester: entry.turn.requester, outcome };
}

/** What the agent asked to do, in a few words: the command it wants to run, else the tool call's title. */
function askedOf(entry: Pending): string {
  const raw = entry.request.toolCall.rawInput as { command?: unknown } | undefined;
  const label = entry.turn.label ? ` (${entry.turn.label})` : "";
  return `${raw && typeof raw.command === "string" ? raw.command : (entry.request.toolCall.title ?? "a tool call")}${label}`;
}

function describe(entry: Pending): string {
  const tool = entry.request.toolCall;
  const who = entry.turn.label ? ` (${entry.turn.label})` : "";
  const command = commandOf(tool);
  const title = tool.title?.trim();
  // The command shows once: agents often title the call with it, in a code span ("Run `make`") or
  // bare (Codex). A bare one goes in the code block alone, where markdown cannot touch it.
  const block = command === undefined ? [] : [`\`\`\`\n${command}\n\`\`\``];
  const lines =
    command !== undefined && title?.includes(`\`${command}\``)
      ? [`🔐 **Permission needed${who}:** ${title}`]
      : command !== undefined && title?.includes(command)
        ? [`🔐 **Permission needed${who} to run:**`, ...block]
        : [`🔐 **Permission needed${who}:** ${title || "a tool call"}`, ...block];
  for (const c of tool.content ?? []) {
    if (c.type === "diff") lines.push(`✏️ \`${c.path}\` (${(c.oldText ?? "").split("\n").length} → ${c.newText.split("\n").length} lines)`);
  }
  return lines.join("\n");
}

/** The shell command a tool call asks to run, where the agent says (ACP's rawInput.command). */
function commandOf(tool: RequestPermissionRequest["toolCall"]): string | undefined {
  const raw = tool.rawInput as { command?: unknown } | undefined;
  return typeof raw?.command === "string" && raw.command.trim() !== "" ? raw.command : undefined;
}

/** What a request asks for, in a line: its command in a code span, else its title. */
export function askedFor(request: RequestPermissionRequest): string {
  const command = commandOf(request.toolCall);
  if (command === undefined) return request.toolCall.title?.trim() || "a tool call";
  const lines = command.trim().split("\n");
  const shown = lines[0].length > ASKED_FOR_MAX_CHARS ? `${lines[0].slice(0, ASKED_FOR_MAX_CHARS)}…` : lines.length > 1 ? `${lines[0]} …` : lines[0];
  // A command with a backtick in it needs a longer fence, spaced from it.
  return shown.includes("`") ? `\`\` ${shown} \`\`` : `\`${shown}\``;
}

function renderRequest(entry: Pending, buttons: boolean): OutboundMessage {
  const options = entry.request.options;
  if (buttons) {
    const row: Button[] = options.map((o, i) => ({
      id: `${APPROVAL_ACTION_PREFIX}${entry.id}:${i}`,
      label: o.name,
      style: o.kind.startsWith("allow") ? (o.kind === "allow_once" ? "primary" : "default") : "danger",
      meaning: o.kind.startsWith("allow") ? "allow" : "deny",
      lasting: o.kind.endsWith("_always"),
    }));
    return { text: describe(entry), buttons: [row], kind: "approval" };
  }
  const list = options.map((o, i) => `${i + 1}. ${o.name}`).join("\n");
  return { text: `${describe(entry)}\n\n${list}\n\nReply with the number, /allow or /deny.`, kind: "approval" };
}

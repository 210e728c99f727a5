// Permission requests from agents, shown in every attached route and answered by the first allowed
// user (a button, `/allow`, `/deny`, or the option's number). Never auto-allowed, never timed out
// into "allow": an unanswered request stays until answered or the turn is cancelled.
import { randomBytes } from "node:crypto";
import type { PermissionOption, RequestPermissionRequest, RequestPermissionResponse } from "@agentclientprotocol/sdk";
import type { ActionOutcome, Button, MessageRef, OutboundMessage, PlatformUser } from "../platforms/contract.js";
import type { RouteTarget, TurnStream } from "./stream.js";

export const APPROVAL_ACTION_PREFIX = "ap:";

interface Pending {
  id: string;
  threadId: string;
  request: RequestPermissionRequest;
  resolve: (response: RequestPermissionResponse) => void;
  /** The request's messages, once posted. */
  posted: Promise<Array<RouteTarget & { ref: MessageRef }>>;
}

export class ApprovalBroker {
  private readonly pending = new Map<string, Pending>();

  /** Shows the request on every route of the turn and waits for an answer. */
  request(threadId: string, request: RequestPermissionRequest, stream: TurnStream): Promise<RequestPermissionResponse> {
    const id = randomBytes(6).toString("base64url");
    return new Promise((resolve) => {
      const entry: Pending = { id, threadId, request, resolve, posted: Promise.resolve([]) };
      this.pending.set(id, entry);
      entry.posted = stream.post((target) => renderRequest(entry, target.adapter.capabilities.buttons));
    });
  }

  pendingCount(threadId: string): number {
    let n = 0;
    for (const p of this.pending.values()) if (p.threadId === threadId) n++;
    return n;
  }

  isApprovalAction(actionId: string): boolean {
    return actionId.startsWith(APPROVAL_ACTION_PREFIX);
  }

  /** A button press: `ap:<id>:<option index>`. */
  async answerAction(actionId: string, user: PlatformUser): Promise<ActionOutcome> {
    const [, id, index] = actionId.split(":");
    const entry = this.pending.get(id ?? "");
    if (!entry) return { ok: false, text: "This request was already answered or has expired." };
    const option = entry.request.options[Number(index)];
    if (!option) return { ok: false, text: "Unknown option." };
    await this.decide(entry, option, user);
    return { ok: true, text: option.name };
  }

  /**
   * A typed answer on a thread with a pending request: `/allow`, `/deny`, or a number.
   * Returns undefined when the text is no answer (so it goes on to the agent).
   */
  async answerText(threadId: string, text: string, user: PlatformUser): Promise<string | undefined> {
    const entry = [...this.pending.values()].find((p) => p.threadId === threadId);
    if (!entry) return undefined;
    const options = entry.request.options;
    const word = text.trim().toLowerCase();
    let option: PermissionOption | undefined;
    if (word === "/allow") option = options.find((o) => o.kind === "allow_once") ?? options.find((o) => o.kind.startsWith("allow"));
    else if (word === "/deny") option = options.find((o) => o.kind === "reject_once") ?? options.find((o) => o.kind.startsWith("reject"));
    else if (/^\d+$/.test(word)) option = options[Number(word) - 1];
    else return undefined;
    if (!option) return `No such option. Answer with a number from 1 to ${options.length}, /allow or /deny.`;
    await this.decide(entry, option, user);
    return "";
  }

  /** The turn was cancelled: every open request of the thread answers "cancelled". */
  async cancelThread(threadId: string): Promise<void> {
    for (const entry of [...this.pending.values()].filter((p) => p.threadId === threadId)) {
      this.pending.delete(entry.id);
      entry.resolve({ outcome: { outcome: "cancelled" } });
      await this.showDecision(entry, "⏹ Cancelled");
    }
  }

  private async decide(entry: Pending, option: PermissionOption, user: PlatformUser): Promise<void> {
    // The first answer wins: remove before anything awaits.
    if (!this.pending.delete(entry.id)) return;
    entry.resolve({ outcome: { outcome: "selected", optionId: option.optionId } });
    const mark = option.kind.startsWith("allow") ? "✅" : "🚫";
    await this.showDecision(entry, `${mark} ${option.name} — by ${user.name ?? user.id}`);
  }

  private async showDecision(entry: Pending, decision: string): Promise<void> {
    const text = `${describe(entry.request)}\n\n**${decision}**`;
    const messages = await entry.posted;
    await Promise.all(
      messages.map((m) => m.adapter.edit(m.route, m.ref, { text, kind: "approval" }).catch(() => undefined)),
    );
  }
}

function describe(request: RequestPermissionRequest): string {
  const tool = request.toolCall;
  const lines = [`🔐 **Permission needed:** ${tool.title ?? "a tool call"}`];
  const raw = tool.rawInput as { command?: unknown } | undefined;
  if (raw && typeof raw.command === "string") lines.push("```\n" + raw.command + "\n```");
  for (const c of tool.content ?? []) {
    if (c.type === "diff") lines.push(`✏️ \`${c.path}\` (${(c.oldText ?? "").split("\n").length} → ${c.newText.split("\n").length} lines)`);
  }
  return lines.join("\n");
}

function renderRequest(entry: Pending, buttons: boolean): OutboundMessage {
  const options = entry.request.options;
  if (buttons) {
    const row: Button[] = options.map((o, i) => ({
      id: `${APPROVAL_ACTION_PREFIX}${entry.id}:${i}`,
      label: o.name,
      style: o.kind.startsWith("allow") ? (o.kind === "allow_once" ? "primary" : "default") : "danger",
    }));
    return { text: describe(entry.request), buttons: [row], kind: "approval" };
  }
  const list = options.map((o, i) => `${i + 1}. ${o.name}`).join("\n");
  return { text: `${describe(entry.request)}\n\n${list}\n\nReply with the number, /allow or /deny.`, kind: "approval" };
}

// Workspaces a thread's agent asks for (`register_workspace` over MCP). Inside the allowed roots
// the directory is only named. Outside them nothing is allowed by the call: with
// `workspaces.allow_outside_roots: confirm` it becomes a proposal shown on the thread's routes with
// buttons, and only a person in access.allow can confirm it; with `never` (the default) it is refused.
import { randomBytes } from "node:crypto";
import { PickupError, userMessageOf } from "../kernel/errors.js";
import type { Logger } from "../kernel/log.js";
import type { ActionOutcome, ActionPress, OutboundMessage } from "../platforms/contract.js";
import type { AuditBody, ThreadRecord } from "../threads/registry.js";
import type { MessageSlot } from "./delivery/slot.js";
import type { RouteTarget } from "./stream.js";
import type { Workspaces } from "./workspaces.js";

const PROPOSAL_ACTION_PREFIX = "wp:";
/** Open proposals remembered for their buttons; the oldest are forgotten first. */
const MAX_OPEN_PROPOSALS = 100;

interface ProposalAnswer {
  text: string;
  data: Record<string, unknown>;
}

interface Proposal {
  id: string;
  threadId: string;
  dir: string;
  name: string;
  posted: Array<RouteTarget & { slot: MessageSlot }>;
}

interface ProposalDeps {
  workspaces: Workspaces;
  thread(id: string): ThreadRecord | undefined;
  targets(thread: ThreadRecord): RouteTarget[];
  audit(body: AuditBody, threadId?: string): Promise<void>;
  log: Logger;
}

export class WorkspaceProposals {
  private readonly open = new Map<string, Proposal>();

  constructor(private readonly deps: ProposalDeps) {}

  /** A thread's agent asks for `dir` (an existing directory, canonical). */
  async request(threadId: string, dir: string, name: string): Promise<ProposalAnswer> {
    const { workspaces } = this.deps;
    if (await workspaces.isWithinConfig(dir)) {
      const path = await workspaces.register(dir, name);
      return { text: `Named ${path} "${name}" (\`/workspace --switch ${name}\` in chat).`, data: { cwd: path, name, status: "registered" } };
    }
    const roots = workspaces.describeRoots(dir) || "the home directory";
    if (!workspaces.confirmsOutsideRoots) {
      await this.deps.audit({ action: "workspace_proposal", outcome: "refused", detail: `${dir} (outside the roots; workspaces.allow_outside_roots: never)` }, threadId);
      throw new PickupError(
        `${dir} is outside Baton's allowed workspaces (${roots}), and Baton's config does not let agents propose others ` +
          "(workspaces.allow_outside_roots: never). Only the person running Baton can allow it, in workspaces.roots.",
      );
    }
    const thread = this.deps.thread(threadId);
    const targets = thread ? this.deps.targets(thread).filter((t) => t.outbox.adapter.capabilities.buttons) : [];
    if (!thread || targets.length === 0)
      throw new PickupError(`${dir} is outside Baton's allowed workspaces (${roots}), and no chat of this thread has buttons to confirm it. Add it to workspaces.roots in the config.`);
    const proposal: Proposal = { id: randomBytes(6).toString("base64url"), threadId, dir, name, posted: [] };
    this.remember(proposal);
    const message = proposalMessage(proposal, roots);
    proposal.posted = targets.map((t) => ({ ...t, slot: t.outbox.post(t.route, message) }));
    await this.deps.audit({ action: "workspace_proposal", outcome: "proposed", detail: dir }, threadId);
    return {
      text: `Proposed ${dir} as workspace "${name}": it is outside Baton's allowed workspaces, so nothing is allowed until a person confirms it with the button in the chat. Tell the user.`,
      data: { cwd: dir, name, status: "proposed" },
    };
  }

  isAction(actionId: string): boolean {
    return actionId.startsWith(PROPOSAL_ACTION_PREFIX);
  }

  /** A press on Allow or Decline (`wp:<id>:yes|no`); Inbound has already checked the person is allowed. */
  async answerAction(press: ActionPress): Promise<ActionOutcome> {
    const [, id, answer] = press.actionId.split(":");
    const proposal = this.open.get(id ?? "");
    if (!proposal?.posted.some((p) => p.route === press.route)) return { ok: false, text: "This proposal was already answered or has expired." };
    this.open.delete(proposal.id);
    const who = press.user.name ?? press.user.id;
    const audit = (outcome: string) =>
      this.deps.audit(
        { action: "workspace_proposal", platform: press.route.slice(0, press.route.indexOf(":")), user: press.user.id, route: press.route, outcome, detail: proposal.dir },
        proposal.threadId,
      );
    if (answer !== "yes") {
      await audit("declined");
      this.settle(proposal, `🚫 Declined — by ${who}`);
      return { ok: true, text: "Declined" };
    }
    try {
      await this.deps.workspaces.register(proposal.dir, proposal.name, press.user.id);
    } catch (error) {
      this.deps.log.error({ err: error, dir: proposal.dir }, "could not record a confirmed workspace");
      return { ok: false, text: `Not allowed: ${userMessageOf(error)}` };
    }
    await audit("confirmed");
    this.settle(proposal, `✅ Allowed as \`${proposal.name}\` — by ${who} (\`/workspace --switch ${proposal.name}\`)`);
    return { ok: true, text: "Allowed" };
  }

  private remember(proposal: Proposal): void {
    if (this.open.size >= MAX_OPEN_PROPOSALS) {
      const oldest = this.open.values().next().value;
      if (oldest) this.settle(oldest, "⌛ Expired: too many open proposals");
      if (oldest) this.open.delete(oldest.id);
    }
    this.open.set(proposal.id, proposal);
  }

  private settle(proposal: Proposal, decision: string): void {
    const message: OutboundMessage = { text: `${describe(proposal)}\n\n**${decision}**`, kind: "notice" };
    for (const { outbox, route, slot } of proposal.posted) {
      if (outbox.adapter.capabilities.edits) slot.update(message);
      else outbox.post(route, { text: `**${decision}**`, kind: "notice" });
    }
  }
}

function describe(proposal: Proposal): string {
  return `📁 **The agent proposes a workspace:** \`${proposal.dir}\` as \`${proposal.name}\``;
}

function proposalMessage(proposal: Proposal, roots: string): OutboundMessage {
  return {
    text: `${describe(proposal)}\n\nIt is outside the allowed roots (${roots}). Allowing it lets agents started from any chat run there and /file read from it.`,
    kind: "notice",
    buttons: [
      [
        { id: `${PROPOSAL_ACTION_PREFIX}${proposal.id}:yes`, label: "Allow", style: "primary", meaning: "allow" },
        { id: `${PROPOSAL_ACTION_PREFIX}${proposal.id}:no`, label: "Decline", style: "danger", meaning: "deny" },
      ],
    ],
  };
}

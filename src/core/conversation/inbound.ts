// Messages and button presses coming in from every platform. One route, one line (intake.ts, which
// also drops redeliveries): a route's messages are handled in arrival order, one at a time, up to
// the point where a turn is queued (an album of five photos makes one thread, and all five reach it). Nothing here waits for a
// turn, so `/stop` is never stuck behind the turn it cancels. Who is allowed is decided here, with
// the platform's own authentication where it has one (the web chat's token); the steps a message
// goes through (addressed, access, command or prompt) are in steps.ts.
import type { ChatContext, ChatMessage, LocalFile, ReplyOptions } from "../../commands/context.js";
import { COMMANDS } from "../../commands/index.js";
import type { ActionOutcome, ActionPress, CommonPlatformSettings, InboundMessage, PlatformAdapter, PlatformLogger } from "../../platforms/contract.js";
import type { ApprovalBroker } from "../approvals.js";
import type { AuditTrail } from "../audit.js";
import { splitMarkdown } from "../../render/split.js";
import type { Outbox } from "../delivery/outbox.js";
import type { FileCache } from "../files.js";
import { decideAddressing } from "./addressing.js";
import { Intake } from "./intake.js";
import type { Roles } from "./roles.js";
import { conversationSteps } from "./steps.js";

const REFUSAL_MEMORY_MAX = 10_000;

export interface Platform {
  adapter: PlatformAdapter;
  outbox: Outbox;
  settings: CommonPlatformSettings;
  listenAllIn: ReadonlySet<string>;
}

export interface InboundDeps {
  platformOf(route: string): Platform | undefined;
  /** What a command handler reaches besides the message (threads, agents, workspaces, handover, limits). */
  services(): Pick<ChatContext, "threads" | "agents" | "workspaces" | "worktrees" | "handover" | "features" | "limits">;
  /** Presses on buttons other than approvals (menus); undefined when the id is not theirs. */
  otherAction?(press: ActionPress): Promise<ActionOutcome> | undefined;
  approvals: ApprovalBroker;
  files: FileCache;
  /** Who is an admin, a member, or nobody (access.allow, access.roles, access.commands). */
  roles: Roles;
  /** Refusals and role decisions are recorded there. */
  audit: AuditTrail;
  refusalIntervalMs: number;
  log: PlatformLogger;
  /** The platform message id of the newest prompt per route (a reaction while its turn runs). */
  onPrompt(route: string, messageId: string | undefined): void;
}

export class Inbound {
  private readonly intake: Intake;
  private readonly refusedAt = new Map<string, number>();
  private readonly steps: (ctx: ChatContext) => Promise<void>;

  constructor(private readonly deps: InboundDeps) {
    this.intake = new Intake(deps.log);
    this.steps = conversationSteps({
      isAllowed: (message) => this.isAllowed(message.user.id, message.route),
      roles: deps.roles,
      audit: deps.audit,
      shouldRefuse: (id) => this.shouldRefuse(id),
      log: deps.log,
    });
  }

  handleMessage(message: InboundMessage): Promise<void> {
    return this.intake.run(message, (settled) => this.process(settled));
  }

  async handleAction(press: ActionPress): Promise<ActionOutcome> {
    // A redelivered press was answered the first time.
    if (!this.intake.firstDelivery(press.route, press.eventId)) return { ok: true, text: "" };
    await this.deps.roles.prepare(press.user, press.route);
    if (!this.isAllowed(press.user.id, press.route)) {
      const { audit } = this.deps;
      audit.note({ action: "access", outcome: "refused", ...audit.who(press.user), route: press.route, detail: "a button press" });
      return { ok: false, text: `You are not allowed to answer this. Ask the operator to add ${press.user.id} to access.allow.` };
    }
    if (this.deps.approvals.isApprovalAction(press.actionId)) return this.deps.approvals.answerAction(press.actionId, press.user, press.route);
    const other = this.deps.otherAction?.(press);
    if (other) return other;
    return { ok: false, text: "This button is no longer active." };
  }

  isAllowed(userId: string, route: string): boolean {
    return this.deps.roles.roleOf(userId, route) !== undefined;
  }

  /** isAllowed after the groups the access lists name were looked up for the user (a schedule's maker, when it runs). */
  async mayUse(userId: string, route: string): Promise<boolean> {
    await this.deps.roles.prepare({ id: userId }, route);
    return this.isAllowed(userId, route);
  }

  private async process(inbound: InboundMessage): Promise<void> {
    const platform = this.deps.platformOf(inbound.route);
    if (!platform) {
      this.deps.log.error({ route: inbound.route }, "message from a route of no known platform");
      return;
    }
    const { addressed, text, parsed } = decideAddressing(inbound, platform.listenAllIn);
    const message: ChatMessage = { route: inbound.route, user: inbound.user, text, messageId: inbound.messageId, direct: inbound.direct, files: inbound.files ?? [] };
    if (addressed && parsed.kind === "prompt") this.deps.onPrompt(inbound.route, inbound.messageId);
    const ctx: ChatContext = {
      message,
      parsed,
      addressed,
      reply: (replyText, options) => this.reply(platform, message, replyText, options),
      fetchFiles: () => this.fetchFiles(platform, message),
      ...this.deps.services(),
      buttons: platform.adapter.capabilities.buttons,
      commands: COMMANDS,
      access: this.accessOf(message),
    };
    await this.steps(ctx);
  }

  /** The sender's role, and the check a command makes before an admin-only part (recorded either way). */
  private accessOf(message: ChatMessage): ChatContext["access"] {
    const { roles, audit } = this.deps;
    const { user, route } = message;
    const role = roles.roleOf(user.id, route);
    return {
      role,
      require: (command, what) => {
        const decision = { action: "command", ...audit.who(user), route, command: message.text.trim(), role, needed: roles.roleFor(command), detail: what };
        try {
          roles.require(command, what, user.id, route);
        } catch (error) {
          audit.note({ ...decision, outcome: "refused" });
          throw error;
        }
        audit.note({ ...decision, outcome: "allowed" });
      },
      note: (event) => audit.note({ ...audit.who(user), route, ...event }),
    };
  }

  private async reply(platform: Platform, message: ChatMessage, text: string, options: ReplyOptions = {}): Promise<void> {
    const { adapter, outbox } = platform;
    if (options.onlyToSender && adapter.notify) {
      try {
        await adapter.notify(message.route, message.user.id, text);
        return;
      } catch (error) {
        this.deps.log.warn({ route: message.route, err: error }, "could not answer privately; answering in the conversation");
      }
    }
    const buttons = adapter.capabilities.buttons ? options.buttons : undefined;
    // A reply longer than the platform takes (a /help that grew) goes as several messages, the buttons on the last.
    const pieces = text.length > adapter.capabilities.maxMessageLength && options.format !== "plain" ? splitMarkdown(text, adapter.capabilities.maxMessageLength) : [text];
    for (const piece of pieces.slice(0, -1)) outbox.post(message.route, { text: piece, format: options.format, kind: "notice" });
    const slot = outbox.post(message.route, { text: pieces[pieces.length - 1], format: options.format, kind: "notice", buttons });
    options.keep?.((replacement) => slot.update({ text: replacement, kind: "notice" }));
  }

  private async fetchFiles(platform: Platform, message: ChatMessage): Promise<{ files: LocalFile[]; notes: string[] }> {
    const out = { files: [] as LocalFile[], notes: [] as string[] };
    // Never for a stranger, whatever step asks: their upload must not touch the disk.
    if (!this.isAllowed(message.user.id, message.route)) return out;
    for (const file of message.files) {
      const fetched = await this.deps.files.fetch(message.route, file, platform.settings.maxFileBytes);
      if (fetched.ok) out.files.push(fetched.file);
      else out.notes.push(fetched.note);
    }
    return out;
  }

  private shouldRefuse(userId: string): boolean {
    const now = Date.now();
    const last = this.refusedAt.get(userId);
    const interval = this.deps.refusalIntervalMs;
    if (last !== undefined && now - last < interval) return false;
    // Many strangers must not grow this map without bound: forget refusals older than the interval.
    if (this.refusedAt.size >= REFUSAL_MEMORY_MAX) for (const [id, at] of this.refusedAt) if (now - at >= interval) this.refusedAt.delete(id);
    this.refusedAt.set(userId, now);
    return true;
  }
}

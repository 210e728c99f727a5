// Matrix events → facts for the core: live room messages (decrypted first; one that stays
// undecryptable is reported, never dropped silently) with their route, sender, direct or not, the
// bot's mentions, a reply to the bot, the room a thread belongs to, and files as descriptors;
// reactions (approvals, see adapter.ts); invites, joined only when the core says the inviter is
// allowed; a person starting to type (the room's m.typing), as a hint that a message is coming. Whether a message is addressed, and who may use the bot, is the core's decision.
// Handlers attach after the first sync, so history is never replayed.
import type { MatrixClient, MatrixEvent, Room, RoomMember } from "matrix-js-sdk";
import type { PlatformCore } from "../contract.js";
import { formatMatrixRoute } from "./routes.js";
import { messageFacts, type BotIdentity } from "./parse.js";
import { matrixFile, type MediaAccess } from "./media.js";
import { distrustOf, type Distrust, type TrustPolicy } from "./trust.js";

/** A late room key often arrives within seconds (to-device messages trail the event); then the message is read after all. */
export const UNDECRYPTABLE_GRACE_MS = 5_000;
/** A room with at most this many joined members (the bot and one person) is a direct chat. */
const DIRECT_MAX_MEMBERS = 2;

export interface Reaction {
  roomId: string;
  userId: string;
  userName?: string;
  targetEventId: string;
  key: string;
  /** The reaction's own event id: the core drops a second delivery of it. */
  eventId: string;
}

export interface Undecryptable {
  route: string;
  userId: string;
  eventId: string;
  reason: string;
}

/** A message refused by the trust policy (trust.ts). */
export interface Distrusted {
  route: string;
  userId: string;
  eventId: string;
  why: Distrust;
  detail: string;
}

export interface InboundOptions {
  instance: string;
  bot: BotIdentity;
  core: PlatformCore;
  media: MediaAccess;
  undecryptableGraceMs: number;
  trust: TrustPolicy;
  onReaction(reaction: Reaction): void;
  onUndecryptable(event: Undecryptable): void;
  onDistrusted(event: Distrusted): void;
}

export class MatrixInbound {
  private readonly pendingDecryption = new Map<string, NodeJS.Timeout>();
  /** Threads the bot has written in: a message there is a reply to it. */
  private readonly botThreads = new Set<string>();
  private readonly detach: Array<() => void> = [];
  /** Live events waiting (in order) while the events since the last leader's position go first. */
  private held?: Array<() => void>;

  constructor(
    private readonly sdk: typeof import("matrix-js-sdk"),
    private readonly client: MatrixClient,
    private readonly options: InboundOptions,
  ) {}

  attach(): void {
    const { sdk, client } = this;
    const onTimeline = (event: MatrixEvent, room: Room | undefined, toStart: boolean | undefined) => {
      if (toStart || !room || event.getSender() === this.options.bot.userId) return;
      const id = event.getId();
      // The SDK can emit one event twice (after a gappy sync): what reaches the core carries the
      // event id, and the core drops a second delivery.
      if (!id || id.startsWith("~")) return;
      if (this.held) this.held.push(() => void this.onLiveEvent(event, room));
      else void this.onLiveEvent(event, room);
    };
    const onDecrypted = (event: MatrixEvent) => {
      const id = event.getId();
      if (!id || !this.pendingDecryption.has(id) || event.isDecryptionFailure()) return;
      clearTimeout(this.pendingDecryption.get(id));
      this.pendingDecryption.delete(id);
      const room = client.getRoom(event.getRoomId());
      if (room) void this.admit(event, room);
    };
    const onMembership = (event: MatrixEvent | undefined, member: RoomMember) => {
      if (member.userId === this.options.bot.userId && member.membership === "invite") void this.onInvite(member.roomId, event?.getSender());
    };
    const onTyping = (_event: MatrixEvent, member: RoomMember) => this.onTyping(member);
    client.on(sdk.RoomEvent.Timeline, onTimeline);
    client.on(sdk.MatrixEventEvent.Decrypted, onDecrypted);
    client.on(sdk.RoomMemberEvent.Membership, onMembership);
    client.on(sdk.RoomMemberEvent.Typing, onTyping);
    this.detach.push(
      () => client.off(sdk.RoomEvent.Timeline, onTimeline),
      () => client.off(sdk.MatrixEventEvent.Decrypted, onDecrypted),
      () => client.off(sdk.RoomMemberEvent.Membership, onMembership),
      () => client.off(sdk.RoomMemberEvent.Typing, onTyping),
    );
    // Invites that came while Baton was down.
    for (const room of client.getRooms()) {
      if (room.getMyMembership() === "invite") void this.onInvite(room.roomId, room.getMember(this.options.bot.userId)?.events.member?.getSender());
    }
  }

  /** Live events wait from now until release(). */
  hold(): void {
    this.held ??= [];
  }

  /** Events that came before the live ones (a catch-up after a takeover), handled as live ones are. */
  replay(events: Array<{ event: MatrixEvent; room: Room }>): void {
    for (const { event, room } of events) {
      const id = event.getId();
      if (id && event.getSender() !== this.options.bot.userId) void this.onLiveEvent(event, room);
    }
  }

  /** The held live events go now, in order; later ones at once. */
  release(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const task of held) task();
  }

  stop(): void {
    this.held = undefined;
    for (const off of this.detach.splice(0)) off();
    for (const timer of this.pendingDecryption.values()) clearTimeout(timer);
    this.pendingDecryption.clear();
  }

  /** The bot wrote in this thread: what follows there counts as a reply to it. */
  noteBotThread(threadRoot: string): void {
    this.botThreads.add(threadRoot);
  }

  route(roomId: string, threadRoot?: string): string {
    return formatMatrixRoute(this.options.instance, { roomId, threadRoot });
  }

  /**
   * The SDK emits this when a member's place in the room's m.typing list changes; only a start counts.
   * m.typing names the room, never a thread, so the hint goes to the room's conversation (a DM's, or
   * a room's own; a thread's agent starts with its message). Not while a catch-up holds live events:
   * the message itself is on its way. A room whose messages require_encryption would refuse is skipped.
   */
  private onTyping(member: RoomMember): void {
    const { bot, core, trust } = this.options;
    if (!member.typing || member.userId === bot.userId || this.held) return;
    if (trust.requireEncryption && !this.client.getRoom(member.roomId)?.hasEncryptionStateEvent()) return;
    core.handleTyping?.({ route: this.route(member.roomId), user: { id: `matrix:${member.userId}`, name: member.name } });
  }

  private async onLiveEvent(event: MatrixEvent, room: Room): Promise<void> {
    if (event.isEncrypted()) {
      await this.client.decryptEventIfNeeded(event);
      if (event.isDecryptionFailure()) {
        const id = event.getId()!;
        // The same event emitted again while its key is awaited: one wait, one notice.
        if (this.pendingDecryption.has(id)) return;
        const timer = setTimeout(() => {
          this.pendingDecryption.delete(id);
          const relation = event.getWireContent()["m.relates_to"];
          const threadRoot = relation?.rel_type === "m.thread" ? relation.event_id : undefined;
          this.options.onUndecryptable({ route: this.route(room.roomId, threadRoot), userId: event.getSender()!, eventId: id, reason: String(event.decryptionFailureReason ?? "unknown") });
        }, this.options.undecryptableGraceMs);
        this.pendingDecryption.set(id, timer);
        return;
      }
    }
    await this.admit(event, room);
  }

  /** Hands the event over unless the trust policy refuses it (then the adapter says why). */
  private async admit(event: MatrixEvent, room: Room): Promise<void> {
    const type = event.getType();
    if (type === "m.room.message" || type === "m.reaction") {
      const distrust = await distrustOf(this.client, event, this.options.trust).catch((error: unknown) => {
        this.options.core.log.warn({ err: error, event: event.getId() }, `${this.options.instance}: could not check a message's device; refused`);
        return { why: "unverified_device" as const, detail: "the check failed" };
      });
      if (distrust) {
        const relation = event.getContent()["m.relates_to"];
        const threadRoot = relation?.rel_type === "m.thread" ? relation.event_id : undefined;
        // A refused reaction says nothing in the room: its message was refused or answered already.
        if (type === "m.room.message") this.options.onDistrusted({ route: this.route(room.roomId, threadRoot), userId: event.getSender()!, eventId: event.getId()!, ...distrust });
        return;
      }
    }
    this.dispatch(event, room);
  }

  private dispatch(event: MatrixEvent, room: Room): void {
    const type = event.getType();
    const sender = event.getSender()!;
    const userName = room.getMember(sender)?.name;
    if (type === "m.reaction") {
      const relation = event.getContent()["m.relates_to"];
      if (relation?.rel_type !== "m.annotation" || typeof relation.key !== "string" || typeof relation.event_id !== "string") return;
      this.options.onReaction({ roomId: room.roomId, userId: sender, userName, targetEventId: relation.event_id, key: relation.key, eventId: event.getId()! });
      return;
    }
    if (type !== "m.room.message" || event.isRedacted()) return;
    const { bot, core, media } = this.options;
    const facts = messageFacts(event.getContent(), bot);
    if (!facts || facts.isEdit) return;
    const sentByBot = (eventId: string | undefined) => eventId !== undefined && room.findEventById(eventId)?.getSender() === bot.userId;
    const inBotThread = facts.threadRoot !== undefined && (this.botThreads.has(facts.threadRoot) || sentByBot(facts.threadRoot));
    const message = {
      route: this.route(room.roomId, facts.threadRoot),
      user: { id: `matrix:${sender}`, name: userName },
      text: facts.text,
      messageId: event.getId()!,
      eventId: event.getId()!,
      direct: room.getJoinedMemberCount() <= DIRECT_MAX_MEMBERS,
      mentions: facts.mentions,
      replyToBot: sentByBot(facts.replyTo) || inBotThread,
      scopes: facts.threadRoot ? [this.route(room.roomId)] : undefined,
      files: facts.attachment ? [matrixFile(facts.attachment, media)] : undefined,
    };
    void core.handleMessage(message).catch((error: unknown) => core.log.error({ route: message.route, err: error }, `${this.options.instance}: the core failed on an inbound message`));
  }

  private async onInvite(roomId: string, inviter: string | undefined): Promise<void> {
    const { core, instance } = this.options;
    // Deny by default: a core that cannot say who is allowed gets no rooms joined.
    const allowed = inviter !== undefined && core.isAllowed?.(`matrix:${inviter}`, this.route(roomId)) === true;
    try {
      if (allowed) {
        await this.client.joinRoom(roomId);
        core.log.info({ room: roomId, inviter }, `${instance}: joined a room on an allowed user's invite`);
      } else {
        await this.client.leave(roomId);
        core.log.info({ room: roomId, inviter }, `${instance}: declined an invite from a user not in access.allow`);
      }
    } catch (error) {
      core.log.warn({ room: roomId, err: error }, `${instance}: could not answer an invite`);
    }
  }
}

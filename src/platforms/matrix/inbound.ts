// Matrix events → facts for the adapter: live room messages (decrypted first; one that stays
// undecryptable is reported, never dropped silently), reactions on the bot's messages, and invites
// (joined only when the inviter is allowed). Decides nothing about threads or access to agents:
// that is the core's. Handlers attach after the first sync, so history is never replayed.
import type { MatrixClient, MatrixEvent, Room, RoomMember } from "matrix-js-sdk";
import { formatMatrixRoute } from "./routes.js";
import { messageFacts, type BotIdentity, type MessageFacts } from "./parse.js";

/** A late room key often arrives within seconds (to-device messages trail the event); then the message is read after all. */
export const UNDECRYPTABLE_GRACE_MS = 5_000;
/** A room with at most this many joined members (the bot and one person) is a direct chat. */
const DIRECT_MAX_MEMBERS = 2;

export interface MatrixInbound extends MessageFacts {
  route: string;
  roomId: string;
  eventId: string;
  userId: string;
  userName?: string;
  direct: boolean;
  replyToBot: boolean;
  /** The room's route, for a message in a thread (listen_all_in on the room covers its threads). */
  scopes: string[];
}

export interface InboundSink {
  message(message: MatrixInbound): void;
  reaction(reaction: { route: string; userId: string; userName?: string; targetEventId: string; key: string }): void;
  undecryptable(notice: { route: string; userId: string; eventId: string; reason: string }): void;
  /** Whether an invite from this Matrix user id is accepted. */
  acceptsInviteFrom(userId: string): boolean;
  log: { info(message: string): void; warn(message: string): void; debug(message: string): void };
}

export class MatrixInboundHandler {
  private readonly live = new Set<string>();
  private readonly pendingDecryption = new Map<string, NodeJS.Timeout>();
  /** Threads the bot has written in: a message there is a reply to it. */
  readonly botThreads = new Set<string>();
  private readonly detach: Array<() => void> = [];

  constructor(
    private readonly sdk: typeof import("matrix-js-sdk"),
    private readonly client: MatrixClient,
    private readonly instance: string,
    private readonly bot: BotIdentity,
    private readonly sink: InboundSink,
  ) {}

  attach(): void {
    const onTimeline = (event: MatrixEvent, room: Room | undefined, toStart: boolean | undefined) => {
      if (toStart || !room || event.getSender() === this.bot.userId) return;
      const id = event.getId();
      if (!id || this.live.has(id) || id.startsWith("~")) return;
      this.live.add(id);
      void this.onLiveEvent(event, room);
    };
    const onDecrypted = (event: MatrixEvent) => {
      const id = event.getId();
      if (!id || !this.pendingDecryption.has(id) || event.isDecryptionFailure()) return;
      clearTimeout(this.pendingDecryption.get(id));
      this.pendingDecryption.delete(id);
      const room = this.client.getRoom(event.getRoomId());
      if (room) this.dispatch(event, room);
    };
    const onMembership = (event: MatrixEvent | undefined, member: RoomMember) => {
      if (member.userId === this.bot.userId && member.membership === "invite") void this.onInvite(member.roomId, event?.getSender());
    };
    this.client.on(this.sdk.RoomEvent.Timeline, onTimeline);
    this.client.on(this.sdk.MatrixEventEvent.Decrypted, onDecrypted);
    this.client.on(this.sdk.RoomMemberEvent.Membership, onMembership);
    this.detach.push(
      () => this.client.off(this.sdk.RoomEvent.Timeline, onTimeline),
      () => this.client.off(this.sdk.MatrixEventEvent.Decrypted, onDecrypted),
      () => this.client.off(this.sdk.RoomMemberEvent.Membership, onMembership),
    );
    // Invites that came while Baton was down.
    for (const room of this.client.getRooms()) {
      if (room.getMyMembership() === "invite") void this.onInvite(room.roomId, room.getMember(this.bot.userId)?.events.member?.getSender());
    }
  }

  stop(): void {
    for (const off of this.detach.splice(0)) off();
    for (const timer of this.pendingDecryption.values()) clearTimeout(timer);
    this.pendingDecryption.clear();
  }

  private async onLiveEvent(event: MatrixEvent, room: Room): Promise<void> {
    if (event.isEncrypted() || event.getWireType() === "m.room.encrypted") {
      await this.client.decryptEventIfNeeded(event);
      if (event.isDecryptionFailure()) {
        const id = event.getId()!;
        this.pendingDecryption.set(
          id,
          setTimeout(() => {
            this.pendingDecryption.delete(id);
            const relation = event.getWireContent()["m.relates_to"];
            const threadRoot = relation?.rel_type === "m.thread" ? relation.event_id : undefined;
            this.sink.undecryptable({ route: this.route(room.roomId, threadRoot), userId: event.getSender()!, eventId: id, reason: String(event.decryptionFailureReason ?? "unknown") });
          }, UNDECRYPTABLE_GRACE_MS),
        );
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
      this.sink.reaction({ route: this.route(room.roomId), userId: sender, userName, targetEventId: relation.event_id, key: relation.key });
      return;
    }
    if (type !== "m.room.message" || event.isRedacted()) return;
    const facts = messageFacts(event.getContent(), this.bot);
    if (!facts || facts.isEdit) return;
    const replied = facts.replyTo ? room.findEventById(facts.replyTo) : undefined;
    const replyToBot = replied?.getSender() === this.bot.userId || (facts.threadRoot !== undefined && (this.botThreads.has(facts.threadRoot) || room.findEventById(facts.threadRoot)?.getSender() === this.bot.userId));
    this.sink.message({
      ...facts,
      route: this.route(room.roomId, facts.threadRoot),
      roomId: room.roomId,
      eventId: event.getId()!,
      userId: sender,
      userName,
      direct: room.getJoinedMemberCount() <= DIRECT_MAX_MEMBERS,
      replyToBot,
      scopes: facts.threadRoot ? [this.route(room.roomId)] : [],
    });
  }

  private async onInvite(roomId: string, inviter: string | undefined): Promise<void> {
    try {
      if (inviter && this.sink.acceptsInviteFrom(inviter)) {
        await this.client.joinRoom(roomId);
        this.sink.log.info(`${this.instance}: joined ${roomId} on ${inviter}'s invite`);
      } else {
        await this.client.leave(roomId);
        this.sink.log.info(`${this.instance}: declined an invite to ${roomId} from ${inviter ?? "an unknown user"} (not in access.allow)`);
      }
    } catch (error) {
      this.sink.log.warn(`${this.instance}: could not answer the invite to ${roomId}: ${(error as Error).message}`);
    }
  }

  route(roomId: string, threadRoot?: string): string {
    return formatMatrixRoute(this.instance, { roomId, threadRoot });
  }
}

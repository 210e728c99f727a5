// The Matrix adapter: one bot device (matrix-js-sdk + Rust crypto, see client.ts), its events turned
// into facts for the core (inbound.ts), and one homeserver call per send or edit (outbound.ts builds
// the contents). Approvals are reactions under the request (approvals.ts). It never routes, paces or
// retries: the core does. A send that failed leaves no local echo behind in the SDK's room.
import type { MatrixClient } from "matrix-js-sdk";
import { PlatformError } from "../../kernel/errors.js";
import type { MessageRef, OutboundFile, OutboundMessage, PlatformAdapter, PlatformCapabilities, PlatformCore, PlatformEnv, PlatformUser, StartInfo } from "../contract.js";
import { uploadMedia } from "./uploads.js";
import type { MatrixAdapterConfig } from "./config.js";
import { MatrixConnection } from "./client.js";
import { toPlatformError } from "./errors.js";
import { MatrixInbound, UNDECRYPTABLE_GRACE_MS, type Distrusted, type Reaction, type Undecryptable } from "./inbound.js";
import { distrustText, type TrustPolicy } from "./trust.js";
import { editContent, messageContent, reactionContent, renderMessage } from "./outbound.js";
import { OpenApprovals, reactionChoices } from "./approvals.js";
import { parseMatrixRoute, type MatrixRoute } from "./routes.js";
import { eventsSince, SyncTokenCursor } from "./sync-cursor.js";
import { hasPowerLevel } from "./power.js";

/**
 * Markdown characters per message. An edit carries the text twice (fallback and new content) plus
 * its HTML; at this length that stays under the event size limit even encrypted (outbound.ts).
 */
export const MATRIX_MAX_MARKDOWN_CHARS = 6_000;
/** How long the homeserver shows "typing…" per call; the core repeats it before it runs out. */
const TYPING_TIMEOUT_MS = 30_000;
const TYPING_INTERVAL_MS = 20_000;
/** At most one "could not decrypt" notice per sender and room in this interval. */
const UNDECRYPTABLE_NOTICE_INTERVAL_MS = 60_000;
const SDK_CANCELLABLE = new Set(["not_sent", "queued", "encrypting"]);

/** Knobs the tests turn down; production uses the defaults. */
export interface MatrixTuning {
  /** How long an undecryptable message waits for its late room key before the notice. */
  undecryptableGraceMs: number;
}

export class MatrixAdapter implements PlatformAdapter {
  readonly kind = "matrix";
  readonly capabilities: PlatformCapabilities;
  readonly connection: MatrixConnection;
  private core?: PlatformCore;
  private inbound?: MatrixInbound;
  private readonly approvals = new OpenApprovals();
  private readonly noticeAt = new Map<string, number>();
  private readonly trust: TrustPolicy;
  private readonly cursors: PlatformEnv["cursors"];
  private syncCursor?: SyncTokenCursor;

  constructor(
    readonly name: string,
    config: MatrixAdapterConfig,
    env: PlatformEnv,
    private readonly tuning: MatrixTuning = { undecryptableGraceMs: UNDECRYPTABLE_GRACE_MS },
  ) {
    // Reactions stand in for buttons: one click on a pill in Element answers (see approvals.ts).
    this.capabilities = { maxMessageLength: MATRIX_MAX_MARKDOWN_CHARS, edits: true, buttons: true, typingIntervalMs: TYPING_INTERVAL_MS, minEditGapMs: config.min_edit_gap_ms };
    this.connection = new MatrixConnection(config, { instance: name, dataDir: env.dataDir, snapshots: env.snapshots });
    this.trust = { requireEncryption: config.require_encryption, requireVerifiedDevices: config.require_verified_devices };
    this.cursors = env.cursors;
  }

  private get client(): MatrixClient {
    return this.connection.client;
  }

  async start(core: PlatformCore): Promise<StartInfo> {
    this.core = core;
    const log = core.log;
    await this.connection.start({ info: (m) => log.info(m), warn: (m) => log.warn(m), debug: (m) => log.debug(m) });
    const sdk = await import("matrix-js-sdk");
    const { user_id: userId, homeserver, access_token: accessToken, device_id: deviceId } = this.connection.session;
    // With shared cursors (store.url): the position the last leader stopped at, and this one's as it goes.
    const cursor = this.cursors ? new SyncTokenCursor(this.cursors, `matrix:${this.name}:${userId}:next_batch`, () => this.connection.cryptoSaved()) : undefined;
    cursor?.follow(this.client, sdk, this.connection.firstSyncToken);
    this.syncCursor = cursor;
    const since = await cursor?.load().catch((error: Error) => void log.warn({ err: error.message }, `${this.name}: could not read the stored sync position`));
    const displayName = await this.client.getProfileInfo(userId, "displayname").then(
      (p) => p.displayname,
      () => undefined,
    );
    this.inbound = new MatrixInbound(sdk, this.client, {
      instance: this.name,
      bot: { userId, displayName },
      core,
      media: { homeserver, accessToken },
      undecryptableGraceMs: this.tuning.undecryptableGraceMs,
      trust: this.trust,
      onReaction: (reaction) => void this.onReaction(reaction).catch((error: unknown) => log.error({ err: error }, `${this.name}: a reaction could not be handled`)),
      onUndecryptable: (event) => void this.onUndecryptable(event).catch((error: unknown) => log.warn({ err: error }, `${this.name}: the undecryptable-message notice could not be sent`)),
      onDistrusted: (event) => void this.onDistrusted(event).catch((error: unknown) => log.warn({ err: error }, `${this.name}: the refusal notice could not be sent`)),
    });
    if (since) this.inbound.hold();
    this.inbound.attach();
    if (since) await this.catchUp(since);
    this.inbound.release();
    cursor?.startSaving();
    return { description: `${this.name}: connected to ${homeserver} as ${userId} (device ${deviceId}, end-to-end encryption on)` };
  }

  async stop(): Promise<void> {
    this.syncCursor?.stop();
    this.syncCursor = undefined;
    this.inbound?.stop();
    this.inbound = undefined;
    await this.connection.stop();
  }

  /** After a takeover: what came since the last leader's position is handled before the live events held meanwhile. */
  private async catchUp(since: string): Promise<void> {
    const log = this.core!.log;
    try {
      const caughtUp = await eventsSince(this.client, await import("matrix-js-sdk"), since);
      log.info({ events: caughtUp.events.length }, `${this.name}: read what came since the last leader's sync position`);
      if (caughtUp.truncatedRooms.length > 0) log.warn({ rooms: caughtUp.truncatedRooms }, `${this.name}: more came in these rooms than a catch-up reads; the oldest were skipped`);
      this.inbound?.replay(caughtUp.events);
    } catch (error) {
      log.warn({ err: toPlatformError(error, "sync").message }, `${this.name}: could not read what came since the last leader's sync position; continuing from now`);
    }
  }

  async send(route: string, message: OutboundMessage): Promise<MessageRef> {
    const target = this.target(route);
    const choices = message.buttons?.length ? reactionChoices(message.buttons.flat()) : undefined;
    const rendered = renderMessage(message, choices?.legend);
    const eventId = await this.sendEvent(target, "m.room.message", messageContent(rendered, target.threadRoot), "send a message", rendered.html !== undefined);
    if (target.threadRoot) this.inbound?.noteBotThread(target.threadRoot);
    if (choices) {
      this.approvals.track(eventId, route, choices.keys);
      // The bot's own reactions are the "buttons". Not awaited: the message is sent, and the core
      // must not resend it because a reaction failed; the numbered reply works without them.
      void this.addReactions(target, eventId, [...choices.keys.keys()]);
    }
    return { id: eventId };
  }

  async edit(route: string, ref: MessageRef, message: OutboundMessage): Promise<void> {
    const target = this.target(route);
    const choices = message.buttons?.length ? reactionChoices(message.buttons.flat()) : undefined;
    // An approval edited without its buttons was answered or expired: its reactions mean nothing now.
    if (choices) this.approvals.track(ref.id, route, choices.keys);
    else this.approvals.forget(ref.id);
    const rendered = renderMessage(message, choices?.legend);
    await this.sendEvent(target, "m.room.message", editContent(ref.id, rendered), "edit a message", rendered.html !== undefined);
  }

  /** The file in the media repository (encrypted in an encrypted room), then one event naming it, the caption as its body. */
  async upload(route: string, file: OutboundFile): Promise<MessageRef> {
    const target = this.target(route);
    let media: Record<string, unknown>;
    try {
      const encrypt = (await this.client.getCrypto()?.isEncryptionEnabledInRoom(target.roomId)) ?? false;
      media = await uploadMedia(this.client, file, encrypt);
    } catch (error) {
      throw toPlatformError(error, "upload a file");
    }
    const caption = file.caption?.trim() ? renderMessage({ text: file.caption, format: file.format }) : { body: file.name, notice: false };
    const content = { ...messageContent(caption, target.threadRoot), ...media };
    const eventId = await this.sendEvent(target, "m.room.message", content, "send a file", caption.html !== undefined);
    if (target.threadRoot) this.inbound?.noteBotThread(target.threadRoot);
    return { id: eventId };
  }

  /** `matrix:power:<n>`: a power level of at least n in the room of the route (its m.room.power_levels). */
  async memberOf(principal: string, user: PlatformUser, route: string): Promise<boolean> {
    return hasPowerLevel(this.client, principal, this.target(route).roomId, user.id.slice("matrix:".length));
  }

  /** Power levels are the room's: one answer holds in each of its threads. */
  groupScope(route: string): string {
    return `${this.name}:${this.target(route).roomId}`;
  }

  async typing(route: string): Promise<void> {
    await this.setTyping(route, true);
  }

  /** The turn ended: take "typing…" down at once rather than letting it run out. */
  async turnStatus(route: string, state: "running" | "idle"): Promise<void> {
    if (state === "idle") await this.setTyping(route, false);
  }

  private async setTyping(route: string, typing: boolean): Promise<void> {
    try {
      await this.client.sendTyping(this.target(route).roomId, typing, TYPING_TIMEOUT_MS);
    } catch (error) {
      throw toPlatformError(error, "show typing");
    }
  }

  /** One PUT /send. On failure the SDK's NOT_SENT local echo is dropped, so nothing resends it later. */
  private async sendEvent(target: MatrixRoute, type: string, content: Record<string, unknown>, what: string, formatted = false): Promise<string> {
    const txnId = this.client.makeTxnId();
    try {
      const { event_id } = await this.client.sendEvent(target.roomId, target.threadRoot ?? null, type as never, content as never, txnId);
      return event_id;
    } catch (error) {
      this.dropLocalEcho(target.roomId, txnId);
      throw toPlatformError(error, what, { formatted });
    }
  }

  private dropLocalEcho(roomId: string, txnId: string): void {
    const echo = this.client.getRoom(roomId)?.getEventForTxnId(txnId);
    if (!echo || !SDK_CANCELLABLE.has(String(echo.status))) return;
    try {
      this.client.cancelPendingEvent(echo);
    } catch (error) {
      this.core?.log.debug({ err: error }, `${this.name}: could not drop an unsent local echo`);
    }
  }

  private async addReactions(target: MatrixRoute, eventId: string, keys: string[]): Promise<void> {
    try {
      for (const key of keys) await this.sendEvent(target, "m.reaction", reactionContent(eventId, key), "react");
    } catch (error) {
      this.core?.log.warn({ err: error }, `${this.name}: the approval's reaction choices could not all be added; a numbered reply still answers it`);
    }
  }

  private async onReaction(reaction: Reaction): Promise<void> {
    const action = this.approvals.actionOf(reaction.targetEventId, reaction.key);
    if (!action) return;
    const outcome = await this.core!.handleAction({ route: action.route, user: { id: `matrix:${reaction.userId}`, name: reaction.userName }, actionId: action.actionId, eventId: reaction.eventId });
    if (outcome.ok || !this.approvals.firstRefusal(reaction.targetEventId, reaction.userId)) return;
    // Matrix has no message only the reacting user sees: the refusal is a quiet notice in the room, once per user and request.
    await this.send(action.route, { text: `${reaction.userName ?? reaction.userId}: ${outcome.text}`, format: "plain", kind: "notice" });
  }

  private async onUndecryptable(event: Undecryptable): Promise<void> {
    this.core!.log.warn({ route: event.route, user: event.userId, event: event.eventId, reason: event.reason }, `${this.name}: could not decrypt a message`);
    const device = this.connection.session.device_id;
    await this.noticeOnce(
      event.route,
      event.userId,
      `⚠️ I could not decrypt a message from ${event.userId}: its key did not reach my device (${device}). Please send it again; if this keeps happening, verify my device (see the Matrix setup guide).`,
    );
  }

  private async onDistrusted(event: Distrusted): Promise<void> {
    const key = event.why === "unencrypted" ? "require_encryption" : "require_verified_devices";
    this.core!.log.warn({ route: event.route, user: event.userId, event: event.eventId, detail: event.detail }, `${this.name}: refused a message (platforms.${this.name}.${key})`);
    await this.noticeOnce(event.route, event.userId, distrustText(event.why));
  }

  /** A notice to an allowed sender, at most once per sender and room in a while. */
  private async noticeOnce(route: string, userId: string, text: string): Promise<void> {
    const core = this.core!;
    // A stranger's message would be refused anyway; telling the room about each of theirs is noise.
    if (core.isAllowed && !core.isAllowed(`matrix:${userId}`, route)) return;
    const key = `${route}\u0000${userId}\u0000${text.slice(0, 2)}`;
    const now = Date.now();
    if (now - (this.noticeAt.get(key) ?? 0) < UNDECRYPTABLE_NOTICE_INTERVAL_MS) return;
    this.noticeAt.set(key, now);
    await this.send(route, { text, format: "plain", kind: "notice" });
  }

  private target(route: string): MatrixRoute {
    const target = parseMatrixRoute(route, this.name);
    if (!target) throw new PlatformError(`Not a route of ${this.name}: ${route}`, { reason: "refused" });
    return target;
  }
}

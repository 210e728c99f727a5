// The Matrix adapter: one bot device (matrix-js-sdk + Rust crypto, see client.ts), its events
// turned into facts for the core (inbound.ts), the core's answers sent as Matrix events
// (outbound.ts). Approvals are reactions on the request. It never routes or paces: the core does.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { MatrixClient } from "matrix-js-sdk";
import { PlatformError } from "../../kernel/errors.js";
import type { MessageRef, OutboundMessage, PlatformAdapter, PlatformCapabilities, PlatformCore, PlatformEnv, StartInfo } from "../contract.js";
import type { MatrixAdapterConfig } from "./config.js";
import { MatrixConnection } from "./client.js";
import { MatrixInboundHandler, type InboundSink, type MatrixInbound } from "./inbound.js";
import { editContent, messageContent, reactionContent, toPlatformError, type RenderedMessage } from "./outbound.js";
import { reactionKeys, reactionLegend } from "./approvals.js";
import { parseMatrixRoute, type MatrixRoute } from "./routes.js";
import { downloadAttachment } from "./media.js";

/** Markdown characters per message: far below the 64 KiB event limit, leaving room for the HTML copy. */
export const MATRIX_MAX_MARKDOWN_CHARS = 16_000;
/** How long the homeserver shows "typing…" per call; the core repeats it before it runs out. */
const TYPING_TIMEOUT_MS = 30_000;
const TYPING_INTERVAL_MS = 20_000;
/** At most one "could not decrypt" notice per sender and room in this interval. */
const UNDECRYPTABLE_NOTICE_INTERVAL_MS = 60_000;

export class MatrixAdapter implements PlatformAdapter {
  readonly kind = "matrix";
  readonly capabilities: PlatformCapabilities;
  readonly connection: MatrixConnection;
  private core?: PlatformCore;
  private inbound?: MatrixInboundHandler;
  /** Approval requests awaiting a reaction: event id → route and reaction key → action id. */
  private readonly approvals = new Map<string, { route: string; keys: Map<string, string> }>();
  private readonly undecryptableNoticeAt = new Map<string, number>();

  constructor(
    readonly name: string,
    private readonly config: MatrixAdapterConfig,
    private readonly env: PlatformEnv,
  ) {
    this.capabilities = { maxMessageLength: MATRIX_MAX_MARKDOWN_CHARS, edits: true, buttons: true, typing: true, typingIntervalMs: TYPING_INTERVAL_MS, minEditGapMs: config.min_edit_gap_ms, dialect: "matrix-html" };
    this.connection = new MatrixConnection(config, { instance: name, dataDir: env.dataDir });
  }

  private get client(): MatrixClient {
    return this.connection.client;
  }

  async start(core: PlatformCore): Promise<StartInfo> {
    this.core = core;
    const log = core.log;
    await this.connection.start({ info: (m) => log.info(m), warn: (m) => log.warn(m), debug: (m) => log.debug(m) });
    const sdk = await import("matrix-js-sdk");
    const userId = this.connection.session.user_id;
    const displayName = await this.client.getProfileInfo(userId, "displayname").then((p) => p.displayname, () => undefined);
    this.inbound = new MatrixInboundHandler(sdk, this.client, this.name, { userId, displayName }, this.sink());
    this.inbound.attach();
    return { description: `${this.name}: connected to ${this.connection.session.homeserver} as ${userId} (device ${this.connection.session.device_id}, end-to-end encryption on)` };
  }

  async stop(): Promise<void> {
    this.inbound?.stop();
    await this.connection.stop();
  }

  async send(route: string, message: OutboundMessage): Promise<MessageRef> {
    const target = this.target(route);
    const choices = message.buttons?.flat() ?? [];
    const keys = reactionKeys(choices);
    const rendered = this.render(message, choices.length > 0 ? reactionLegend(choices, keys) : undefined);
    const eventId = await this.sendContent(target, "m.room.message", messageContent(rendered, target.threadRoot), "send a message");
    if (target.threadRoot) this.inbound?.botThreads.add(target.threadRoot);
    if (choices.length > 0) {
      this.approvals.set(eventId, { route, keys });
      // The bot's own reactions are the "buttons": one click answers. Best effort; the numbered reply works too.
      for (const key of keys.keys()) await this.sendContent(target, "m.reaction", reactionContent(eventId, key), "react").catch(() => undefined);
    }
    return { id: eventId };
  }

  async edit(route: string, ref: MessageRef, message: OutboundMessage): Promise<void> {
    const target = this.target(route);
    if (!message.buttons?.length) this.approvals.delete(ref.id);
    await this.sendContent(target, "m.room.message", editContent(ref.id, this.render(message)), "edit a message");
  }

  async typing(route: string): Promise<void> {
    const target = this.target(route);
    await this.client.sendTyping(target.roomId, true, TYPING_TIMEOUT_MS).catch((error: unknown) => {
      throw toPlatformError(error, "show typing");
    });
  }

  private render(message: OutboundMessage, legend?: string): RenderedMessage {
    const notice = message.kind !== undefined && message.kind !== "text" && message.kind !== "approval" && message.kind !== "error";
    const body = legend ? `${message.text}\n\n${legend}` : message.text;
    return { body, notice };
  }

  private async sendContent(target: MatrixRoute, type: string, content: Record<string, unknown>, what: string): Promise<string> {
    try {
      const { event_id } = await this.client.sendEvent(target.roomId, target.threadRoot ?? null, type as never, content as never);
      return event_id;
    } catch (error) {
      throw toPlatformError(error, what);
    }
  }

  private target(route: string): MatrixRoute {
    const target = parseMatrixRoute(route, this.name);
    if (!target) throw new PlatformError(`Not a route of ${this.name}: ${route}`, { reason: "refused" });
    return target;
  }

  private sink(): InboundSink {
    const log = this.core!.log;
    return {
      log: { info: (m) => log.info(m), warn: (m) => log.warn(m), debug: (m) => log.debug(m) },
      acceptsInviteFrom: (userId) => this.core?.isAllowed?.(`matrix:${userId}`) ?? false,
      message: (message) => void this.onMessage(message).catch((error) => log.error({ err: error }, `${this.name}: a message could not be handled`)),
      reaction: (reaction) => void this.onReaction(reaction).catch((error) => log.error({ err: error }, `${this.name}: a reaction could not be handled`)),
      undecryptable: (notice) => void this.onUndecryptable(notice).catch((error) => log.warn({ err: error }, `${this.name}: the undecryptable notice could not be sent`)),
    };
  }

  private async onMessage(message: MatrixInbound): Promise<void> {
    const core = this.core!;
    const listenAll = [message.route, ...message.scopes].some((r) => this.config.listen_all_in.includes(r));
    const command = message.text.trimStart().startsWith("/");
    const addressed = message.direct || message.mentionsBot || message.mentions.length > 0 || message.replyToBot || command || listenAll;
    const user = { id: `matrix:${message.userId}`, name: message.userName };
    let text = message.text;
    for (const mention of message.mentions) text = text.replace(mention, "");
    text = text.replace(/^[\s:,]+/, "").trim();
    const files = [];
    if (message.attachment && addressed && core.isAllowed?.(user.id)) {
      const data = await downloadAttachment(message.attachment, { homeserver: this.connection.session.homeserver, accessToken: this.connection.session.access_token }, this.config.max_file_bytes);
      const dir = join(this.env.cacheDir, this.name, message.roomId.replace(/[^A-Za-z0-9]/g, "_"));
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const path = join(dir, `${Date.now()}-${message.attachment.name.replace(/[^\w.-]/g, "_")}`);
      await writeFile(path, data, { mode: 0o600 });
      files.push({ name: message.attachment.name, path, mimeType: message.attachment.mimeType, size: data.length });
    }
    await core.handleMessage({ route: message.route, user, text, addressed, direct: message.direct, messageId: message.eventId, files });
  }

  private async onReaction(reaction: { route: string; userId: string; userName?: string; targetEventId: string; key: string }): Promise<void> {
    const approval = this.approvals.get(reaction.targetEventId);
    const actionId = approval?.keys.get(reaction.key);
    if (!approval || !actionId) return;
    const outcome = await this.core!.handleAction({ route: approval.route, user: { id: `matrix:${reaction.userId}`, name: reaction.userName }, actionId, messageId: reaction.targetEventId });
    if (!outcome.ok) this.core!.log.info(`${this.name}: reaction from ${reaction.userId} changed nothing: ${outcome.text}`);
  }

  private async onUndecryptable(notice: { route: string; userId: string; eventId: string; reason: string }): Promise<void> {
    const key = `${notice.route}\u0000${notice.userId}`;
    const last = this.undecryptableNoticeAt.get(key) ?? 0;
    this.core!.log.warn(`${this.name}: could not decrypt ${notice.eventId} from ${notice.userId} in ${notice.route} (${notice.reason})`);
    if (Date.now() - last < UNDECRYPTABLE_NOTICE_INTERVAL_MS) return;
    this.undecryptableNoticeAt.set(key, Date.now());
    await this.send(notice.route, {
      text: `I could not decrypt a message from ${notice.userId}: its key did not reach my device (${this.connection.session.device_id}). Please send it again.`,
      kind: "notice",
      format: "plain",
    });
  }
}

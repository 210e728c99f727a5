// The Telegram adapter: connects with grammy's API client, receives updates by long polling (or a
// webhook), hands them to the core as facts, and performs the one Bot API call the core asks for.
// It never routes and never paces: the core does, from the limits declared here.
import { Api } from "grammy/web";
import type { UserFromGetMe } from "grammy/types";
import { PlatformError } from "../../kernel/errors.js";
import type { MessageRef, OutboundFile, OutboundMessage, PacingLimits, PlatformAdapter, PlatformCapabilities, PlatformCore, PlatformEnv, PlatformUser, StartInfo } from "../contract.js";
import { pacingWith } from "../kit/pacing.js";
import type { TelegramAdapterConfig } from "./config.js";
import { describeError, toPlatformError } from "./errors.js";
import { InboundHandler } from "./inbound.js";
import { TelegramOutbound } from "./outbound.js";
import { DEFAULT_POLLER_OPTIONS, UpdatePoller, type OffsetCursor, type PollerOptions } from "./poller.js";
import { chatLevelRoute, isGroupChatId, parseTelegramRoute, telegramUserId } from "./routes.js";
import { buildCommandMenu } from "./commands.js";
import { WebhookServer } from "./webhook.js";
import { TELEGRAM_MAX_UPLOAD_BYTES, uploadFile } from "./uploads.js";
import { createNodeHttpFetch, type NodeHttpFetch } from "../kit/node-http-fetch.js";

const DEFAULT_API_ROOT = "https://api.telegram.org";
/** Markdown characters per chunk: leaves room under Telegram's 4096 for bullets and table padding. */
export const TELEGRAM_MAX_MARKDOWN_CHARS = 3500;
/** Telegram shows "typing…" for about 5 s; 4 s keeps it on without gaps. */
export const TYPING_INTERVAL_MS = 4000;
/** Per Bot API call (a long poll adds its own hold time on top). */
const REQUEST_TIMEOUT_SECONDS = 30;
/**
 * Telegram's flood limits (Bot FAQ, "My bot is hitting limits"): "avoid sending more than one
 * message per second in a particular chat. We may allow short bursts that go over this limit, but
 * eventually you'll begin receiving 429 errors"; in a group "not more than 20 messages per minute";
 * "not more than 30 messages per second" for the whole bot. Edits count like messages. A burst of
 * three lets a short answer's send and final edit go at once; a stream then keeps one a second.
 */
export const TELEGRAM_PACING: PacingLimits = {
  key: { burst: 3, perSecond: 1 },
  keyWindow: { calls: 20, windowMs: 60_000 },
  platform: { calls: 30, windowMs: 1_000 },
};

/** Knobs the tests turn down (backoff in seconds makes for slow tests); production uses the defaults. */
export interface TelegramTuning {
  pacing: PacingLimits;
  poller: PollerOptions;
}

export class TelegramAdapter implements PlatformAdapter {
  readonly kind = "telegram";
  readonly capabilities: PlatformCapabilities;
  private readonly api: Api;
  private readonly pollApi: Api;
  /** Both Api clients' calls: Node's http with keep-alive sockets, far cheaper per call than global fetch. */
  private readonly http: NodeHttpFetch;
  private readonly apiRoot: string;
  private readonly tuning: TelegramTuning;
  private readonly outbound: TelegramOutbound;
  private botInfo?: UserFromGetMe;
  private poller?: UpdatePoller;
  private webhook?: WebhookServer;
  private inbound?: InboundHandler;

  constructor(
    readonly name: string,
    private readonly config: TelegramAdapterConfig,
    private readonly env: PlatformEnv,
    tuning: Partial<TelegramTuning> = {},
  ) {
    this.tuning = { pacing: TELEGRAM_PACING, poller: DEFAULT_POLLER_OPTIONS, ...tuning };
    this.apiRoot = (config.api_root ?? DEFAULT_API_ROOT).replace(/\/+$/, "");
    this.capabilities = {
      maxMessageLength: TELEGRAM_MAX_MARKDOWN_CHARS,
      edits: true,
      buttons: true,
      typingIntervalMs: TYPING_INTERVAL_MS,
      minEditGapMs: config.min_edit_gap_ms,
      pacing: pacingWith(this.tuning.pacing, config.pacing),
      maxUploadBytes: TELEGRAM_MAX_UPLOAD_BYTES,
    };
    // One pair of agents for both clients: the long poll holds one socket, sends use the others, and
    // stop() closes them all.
    this.http = createNodeHttpFetch();
    const fetch = this.http.fetch as typeof globalThis.fetch;
    this.api = new Api(config.token, { apiRoot: this.apiRoot, timeoutSeconds: REQUEST_TIMEOUT_SECONDS, fetch });
    // The poller holds its request open far longer than a send.
    this.pollApi = new Api(config.token, { apiRoot: this.apiRoot, timeoutSeconds: this.tuning.poller.pollTimeoutSeconds + REQUEST_TIMEOUT_SECONDS, fetch });
    this.outbound = new TelegramOutbound(this.api, config.token);
  }

  async start(core: PlatformCore): Promise<StartInfo> {
    this.botInfo ??= await this.call(() => this.api.getMe(), "check the bot token");
    this.inbound = new InboundHandler({
      instance: this.name,
      api: this.api,
      apiRoot: this.apiRoot,
      token: this.config.token,
      core,
      bot: { id: this.botInfo.id, username: this.botInfo.username },
      allowGroups: this.config.allow_groups,
    });
    await this.publishCommands(core);
    if (this.config.mode === "webhook") await this.startWebhook();
    else {
      await this.call(() => this.api.deleteWebhook(), "switch from a webhook to polling");
      this.poller = new UpdatePoller(this.pollApi, this.name, this.config.token, core.log, (update) => this.inbound?.onUpdate(update), this.tuning.poller, this.offsetCursor());
      this.poller.start();
    }
    // The daemon logs and prints this line once for every platform.
    return { description: `${this.name}: connected as @${this.botInfo.username}` };
  }

  private offsetCursor(): OffsetCursor | undefined {
    const cursors = this.env.cursors;
    if (!cursors) return undefined;
    const key = `telegram:${this.name}:${this.botInfo?.id}:offset`;
    return { load: async () => Number((await cursors.get(key)) ?? 0) || undefined, save: (offset) => cursors.set(key, String(offset)) };
  }

  async stop(): Promise<void> {
    const poller = this.poller;
    const webhook = this.webhook;
    this.poller = undefined;
    this.webhook = undefined;
    await Promise.all([poller?.stop(), webhook?.stop()]);
    // After the poller's last call (it confirms handled updates); the core has drained before stop().
    // The agents stay usable: a later start() opens new sockets.
    this.http.destroy();
  }

  async send(route: string, message: OutboundMessage): Promise<MessageRef> {
    return this.outbound.send(this.target(route), message);
  }

  async edit(route: string, ref: MessageRef, message: OutboundMessage): Promise<void> {
    await this.outbound.edit(this.target(route), ref, message);
  }

  async upload(route: string, file: OutboundFile): Promise<MessageRef> {
    return uploadFile(this.api, this.config.token, this.target(route), file);
  }

  /** Telegram's flood limits count per chat: a forum's topics share their chat's budget. */
  paceKey(route: string): { key: string; windowed: boolean } {
    const { chatId } = this.target(route);
    return { key: String(chatId), windowed: isGroupChatId(chatId) };
  }

  /** `telegram:admins`: the administrators of the group the route is in (getChatAdministrators); a private chat has none. */
  async memberOf(principal: string, user: PlatformUser, route: string): Promise<boolean> {
    const { chatId } = this.target(route);
    if (principal !== "telegram:admins" || !isGroupChatId(chatId)) return false;
    const admins = await this.call(() => this.api.getChatAdministrators(chatId), "list the group's administrators");
    return admins.some((admin) => telegramUserId(admin.user.id) === user.id);
  }

  /** A group's administrators are the same in each of its topics. */
  groupScope(route: string): string {
    return chatLevelRoute(this.name, this.target(route).chatId);
  }

  async typing(route: string): Promise<void> {
    await this.outbound.typing(this.target(route));
  }

  private target(route: string) {
    const target = parseTelegramRoute(route, this.name);
    if (!target) throw new PlatformError(`Not a route of ${this.name}: ${route}`, { reason: "refused" });
    return target;
  }

  private async call<T>(request: () => Promise<T>, what: string): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw toPlatformError(error, what, this.config.token);
    }
  }

  private async publishCommands(core: PlatformCore): Promise<void> {
    try {
      await this.api.setMyCommands(buildCommandMenu(core.commandList()));
    } catch (error) {
      // The command menu is a convenience; the bot works without it.
      core.log.warn({ detail: describeError(error, this.config.token) }, `${this.name}: setMyCommands failed`);
    }
  }

  private async startWebhook(): Promise<void> {
    const settings = this.config.webhook;
    if (!settings) throw new PlatformError(`platforms.${this.name}.webhook is required when mode is webhook.`, { reason: "refused" });
    const server = new WebhookServer({
      listen: settings.listen,
      path: new URL(settings.url).pathname,
      secretToken: settings.secret_token,
      onUpdate: (update) => this.inbound?.onUpdate(update),
    });
    await server.start();
    this.webhook = server;
    try {
      await this.call(() => this.api.setWebhook(settings.url, { secret_token: settings.secret_token, allowed_updates: ["message", "callback_query"] }), "register the webhook");
    } catch (error) {
      await server.stop();
      this.webhook = undefined;
      throw error;
    }
  }
}

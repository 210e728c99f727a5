// The Telegram adapter: connects with grammy's API client, receives updates by long polling (or a
// webhook), hands them to the core as InboundMessage / ActionPress, and sends what the core answers.
// It never routes: which thread a message belongs to is the core's business.
import { Api } from "grammy";
import { autoRetry } from "@grammyjs/auto-retry";
import type { CallbackQuery, Message, Update, UserFromGetMe } from "grammy/types";
import { PlatformError, userMessageOf } from "../../bot/errors.js";
import type { InboundFile, MessageRef, OutboundMessage, PlatformAdapter, PlatformCapabilities, PlatformCore, PlatformEnv, StartInfo } from "../contract.js";
import { ChatSendBudget, TELEGRAM_SEND_LIMITS, type SendBudgetLimits } from "./budget.js";
import type { TelegramAdapterConfig } from "./config.js";
import { describeError, toPlatformError } from "./errors.js";
import { downloadAttachment } from "./files.js";
import { TelegramOutbound } from "./outbound.js";
import { parseMessage, routeOfMessage, telegramUser, type BotIdentity } from "./parse.js";
import { DEFAULT_POLLER_OPTIONS, UpdatePoller, type PollerOptions } from "./poller.js";
import { parseTelegramRoute } from "./routes.js";
import { buildCommandMenu } from "./commands.js";
import { WebhookServer } from "./webhook.js";

export const DEFAULT_API_ROOT = "https://api.telegram.org";
/** Markdown characters per chunk: leaves room under Telegram's 4096 for bullets and table padding. */
export const TELEGRAM_MAX_MARKDOWN_CHARS = 3500;
/** Telegram shows "typing…" for about 5 s; 4 s keeps it on without gaps. */
export const TYPING_INTERVAL_MS = 4000;
const REQUEST_TIMEOUT_SECONDS = 30;
/** Longest retry_after we sit out inside a call; beyond it the call fails as refused. */
const MAX_RETRY_AFTER_SECONDS = 120;
const MAX_RETRIES_PER_CALL = 3;
/** Telegram caps callback answers at 200 characters. */
const MAX_CALLBACK_ANSWER_CHARS = 200;

/** Knobs the tests turn down (budgets and backoff in seconds make for slow tests); production uses the defaults. */
export interface TelegramTuning {
  sendLimits: SendBudgetLimits;
  poller: PollerOptions;
}

export class TelegramAdapter implements PlatformAdapter {
  readonly kind = "telegram";
  readonly capabilities: PlatformCapabilities;
  private readonly api: Api;
  private readonly pollApi: Api;
  private readonly apiRoot: string;
  private readonly tuning: TelegramTuning;
  private readonly listenAllIn: ReadonlySet<string>;
  private budget: ChatSendBudget;
  private outbound: TelegramOutbound;
  private core?: PlatformCore;
  private botInfo?: UserFromGetMe;
  private poller?: UpdatePoller;
  private webhook?: WebhookServer;
  /** Per chat, the inbound work in arrival order (downloads are slow; order must hold). */
  private readonly inboundChains = new Map<string, Promise<void>>();

  constructor(
    readonly name: string,
    private readonly config: TelegramAdapterConfig,
    private readonly env: PlatformEnv,
    tuning: Partial<TelegramTuning> = {},
  ) {
    this.tuning = { sendLimits: TELEGRAM_SEND_LIMITS, poller: DEFAULT_POLLER_OPTIONS, ...tuning };
    this.apiRoot = (config.api_root ?? DEFAULT_API_ROOT).replace(/\/+$/, "");
    this.capabilities = {
      maxMessageLength: TELEGRAM_MAX_MARKDOWN_CHARS,
      edits: true,
      buttons: true,
      typing: true,
      typingIntervalMs: TYPING_INTERVAL_MS,
      minEditGapMs: config.min_edit_gap_ms,
      dialect: "telegram-html",
    };
    this.listenAllIn = new Set(config.listen_all_in);
    this.api = new Api(config.token, { apiRoot: this.apiRoot, timeoutSeconds: REQUEST_TIMEOUT_SECONDS });
    // 429: wait retry_after and try again. Network errors are not retried here: the core decides.
    this.api.config.use(autoRetry({ maxRetryAttempts: MAX_RETRIES_PER_CALL, maxDelaySeconds: MAX_RETRY_AFTER_SECONDS, rethrowHttpErrors: true }));
    // The poller has its own backoff and must see 409s itself, so its client has no auto-retry.
    this.pollApi = new Api(config.token, { apiRoot: this.apiRoot, timeoutSeconds: this.tuning.poller.pollTimeoutSeconds + REQUEST_TIMEOUT_SECONDS });
    this.budget = new ChatSendBudget(this.tuning.sendLimits);
    this.outbound = new TelegramOutbound(this.api, this.budget, config.token, () => this.core?.log);
  }

  async start(core: PlatformCore): Promise<StartInfo> {
    this.core = core;
    if (this.budget.isClosed()) {
      // Started again after stop(): the old budget dropped its queue for good.
      this.budget = new ChatSendBudget(this.tuning.sendLimits);
      this.outbound = new TelegramOutbound(this.api, this.budget, this.config.token, () => this.core?.log);
    }
    this.botInfo ??= await this.call(() => this.api.getMe(), "check the bot token");
    await this.publishCommands(core);
    if (this.config.mode === "webhook") await this.startWebhook();
    else {
      await this.call(() => this.api.deleteWebhook(), "switch from a webhook to polling");
      this.poller = new UpdatePoller(this.pollApi, this.name, this.config.token, core.log, (update) => this.onUpdate(update), this.tuning.poller);
      this.poller.start();
    }
    const description = `${this.name}: connected as @${this.botInfo.username}`;
    core.log.info(description);
    return { description };
  }

  async stop(): Promise<void> {
    const poller = this.poller;
    const webhook = this.webhook;
    this.poller = undefined;
    this.webhook = undefined;
    this.budget.close();
    await Promise.all([poller?.stop(), webhook?.stop()]);
  }

  async send(route: string, message: OutboundMessage): Promise<MessageRef> {
    return this.outbound.send(this.target(route), message);
  }

  async edit(route: string, ref: MessageRef, message: OutboundMessage): Promise<void> {
    await this.outbound.edit(this.target(route), ref, message);
  }

  async delete(route: string, ref: MessageRef): Promise<void> {
    await this.outbound.delete(this.target(route), ref);
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
      onUpdate: (update) => this.onUpdate(update),
    });
    await server.start();
    this.webhook = server;
    try {
      await this.call(
        () => this.api.setWebhook(settings.url, { secret_token: settings.secret_token, allowed_updates: ["message", "callback_query"] }),
        "register the webhook",
      );
    } catch (error) {
      await server.stop();
      this.webhook = undefined;
      throw error;
    }
  }

  private onUpdate(update: Update): void {
    if (update.message) this.enqueueInbound(update.message);
    else if (update.callback_query) void this.handleCallback(update.callback_query);
  }

  private enqueueInbound(message: Message): void {
    const chatKey = String(message.chat.id);
    const previous = this.inboundChains.get(chatKey) ?? Promise.resolve();
    const next = previous.then(() => this.handleMessage(message)).catch((error: unknown) => {
      this.core?.log.error({ detail: describeError(error, this.config.token) }, `${this.name}: an inbound message could not be handled`);
    });
    this.inboundChains.set(chatKey, next);
    void next.finally(() => {
      if (this.inboundChains.get(chatKey) === next) this.inboundChains.delete(chatKey);
    });
  }

  private async handleMessage(message: Message): Promise<void> {
    const core = this.core;
    if (!core || !this.botInfo) return;
    const parsed = parseMessage(message, {
      instance: this.name,
      bot: identityOf(this.botInfo),
      allowGroups: this.config.allow_groups,
      listenAllIn: this.listenAllIn,
    });
    if (parsed.kind === "ignored") {
      core.log.debug({ chat: message.chat.id, reason: parsed.reason }, `${this.name}: message ignored`);
      return;
    }
    const files: InboundFile[] = [];
    const notes: string[] = [];
    for (const attachment of parsed.attachments) {
      const result = await downloadAttachment(attachment, parsed.message.route, {
        api: this.api,
        apiRoot: this.apiRoot,
        token: this.config.token,
        cacheDir: this.env.cacheDir,
        maxFileBytes: this.config.max_file_bytes,
      });
      if (result.ok) files.push(result.file);
      else notes.push(result.note);
    }
    const text = [parsed.message.text, ...notes].filter((part) => part.length > 0).join("\n");
    // Not awaited: the core may hold a message while a turn runs, and `/stop` must not wait behind it.
    void core.handleMessage({ ...parsed.message, text, files: files.length > 0 ? files : undefined }).catch((error: unknown) => {
      core.log.error({ detail: describeError(error, this.config.token) }, `${this.name}: the core failed on an inbound message`);
    });
  }

  private async handleCallback(query: CallbackQuery): Promise<void> {
    const core = this.core;
    if (!core) return;
    let outcome: { ok: boolean; text: string };
    const message = query.message;
    if (!message || query.data === undefined) {
      outcome = { ok: false, text: "This button no longer works." };
    } else {
      try {
        outcome = await core.handleAction({
          route: routeOfMessage(this.name, message as Message),
          user: telegramUser(query.from),
          actionId: query.data,
          messageId: String(message.message_id),
        });
      } catch (error) {
        core.log.error({ detail: describeError(error, this.config.token) }, `${this.name}: the core failed on a button press`);
        outcome = { ok: false, text: userMessageOf(error) };
      }
    }
    try {
      await this.api.answerCallbackQuery(query.id, { text: outcome.text.slice(0, MAX_CALLBACK_ANSWER_CHARS), show_alert: !outcome.ok });
    } catch (error) {
      core.log.warn({ detail: describeError(error, this.config.token) }, `${this.name}: answerCallbackQuery failed`);
    }
  }
}

function identityOf(me: UserFromGetMe): BotIdentity {
  return { id: me.id, username: me.username };
}

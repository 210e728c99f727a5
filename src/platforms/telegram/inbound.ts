// Updates from Telegram → the core. Messages of one chat are handed over in arrival order (a
// document's download must not let the next text overtake it), but the adapter never waits for
// the core to finish with one: `/stop` must not queue behind the turn it cancels. Button presses
// go straight through and are answered with the core's outcome.
import type { Api } from "grammy";
import type { CallbackQuery, Message, Update } from "grammy/types";
import { userMessageOf } from "../../kernel/errors.js";
import type { ActionOutcome, InboundFile, PlatformCore } from "../contract.js";
import { describeError } from "./errors.js";
import { downloadAttachment } from "./files.js";
import { parseMessage, routeOfMessage, telegramUser, type BotIdentity } from "./parse.js";

/** Telegram caps callback answers at 200 characters. */
const MAX_CALLBACK_ANSWER_CHARS = 200;

export interface InboundOptions {
  instance: string;
  api: Api;
  apiRoot: string;
  token: string;
  core: PlatformCore;
  bot: BotIdentity;
  allowGroups: boolean;
  listenAllIn: ReadonlySet<string>;
  cacheDir: string;
  maxFileBytes: number;
}

export class InboundHandler {
  /** Per chat, the inbound work in arrival order. */
  private readonly chains = new Map<string, Promise<void>>();

  constructor(private readonly options: InboundOptions) {}

  onUpdate(update: Update): void {
    if (update.message) this.enqueue(update.message);
    else if (update.callback_query) void this.handleCallback(update.callback_query);
  }

  private enqueue(message: Message): void {
    const chatKey = String(message.chat.id);
    const previous = this.chains.get(chatKey) ?? Promise.resolve();
    const next = previous.then(() => this.handleMessage(message)).catch((error: unknown) => this.logFailure(error, "an inbound message could not be handled"));
    this.chains.set(chatKey, next);
    void next.finally(() => {
      if (this.chains.get(chatKey) === next) this.chains.delete(chatKey);
    });
  }

  private async handleMessage(message: Message): Promise<void> {
    const { core, instance } = this.options;
    const parsed = parseMessage(message, { instance, bot: this.options.bot, allowGroups: this.options.allowGroups, listenAllIn: this.options.listenAllIn });
    if (parsed.kind === "ignored") {
      core.log.debug({ chat: message.chat.id, reason: parsed.reason }, `${instance}: message ignored`);
      return;
    }
    const files: InboundFile[] = [];
    const notes: string[] = [];
    for (const attachment of parsed.attachments) {
      const result = await downloadAttachment(attachment, parsed.message.route, this.options);
      if (result.ok) files.push(result.file);
      else notes.push(result.note);
    }
    const text = [parsed.message.text, ...notes].filter((part) => part.length > 0).join("\n");
    void core
      .handleMessage({ ...parsed.message, text, files: files.length > 0 ? files : undefined })
      .catch((error: unknown) => this.logFailure(error, "the core failed on an inbound message"));
  }

  private async handleCallback(query: CallbackQuery): Promise<void> {
    const outcome = await this.outcomeOf(query);
    try {
      await this.options.api.answerCallbackQuery(query.id, { text: outcome.text.slice(0, MAX_CALLBACK_ANSWER_CHARS), show_alert: !outcome.ok });
    } catch (error) {
      this.options.core.log.warn({ detail: describeError(error, this.options.token) }, `${this.options.instance}: answerCallbackQuery failed`);
    }
  }

  private async outcomeOf(query: CallbackQuery): Promise<ActionOutcome> {
    const message = query.message;
    if (!message || query.data === undefined) return { ok: false, text: "This button no longer works." };
    try {
      return await this.options.core.handleAction({
        route: routeOfMessage(this.options.instance, message as Message),
        user: telegramUser(query.from),
        actionId: query.data,
        messageId: String(message.message_id),
      });
    } catch (error) {
      this.logFailure(error, "the core failed on a button press");
      return { ok: false, text: userMessageOf(error) };
    }
  }

  private logFailure(error: unknown, what: string): void {
    this.options.core.log.error({ detail: describeError(error, this.options.token) }, `${this.options.instance}: ${what}`);
  }
}

// Updates from Telegram → the core, in arrival order. Messages are handed over at once with their
// files as descriptors (the core fetches them, and only for allowed users), never waiting for the
// core to finish with one: `/stop` must not queue behind the turn it cancels. Button presses go
// straight through and are answered with the core's outcome.
import type { Api } from "grammy/web";
import type { CallbackQuery, Message, Update } from "grammy/types";
import { userMessageOf } from "../../kernel/errors.js";
import type { ActionOutcome, PlatformCore } from "../contract.js";
import { describeError } from "./errors.js";
import { telegramFile } from "./files.js";
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
}

export class InboundHandler {
  constructor(private readonly options: InboundOptions) {}

  onUpdate(update: Update): void {
    if (update.message) this.handleMessage(update.message);
    else if (update.callback_query) void this.handleCallback(update.callback_query);
  }

  private handleMessage(message: Message): void {
    const { core, instance } = this.options;
    const parsed = parseMessage(message, { instance, bot: this.options.bot, allowGroups: this.options.allowGroups });
    if (parsed.kind === "ignored") {
      core.log.debug({ chat: message.chat.id, reason: parsed.reason }, `${instance}: message ignored`);
      return;
    }
    const files = parsed.attachments.map((attachment) => telegramFile(attachment, this.options));
    void core.handleMessage({ ...parsed.message, files: files.length > 0 ? files : undefined }).catch((error: unknown) => this.logFailure(error, "the core failed on an inbound message"));
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

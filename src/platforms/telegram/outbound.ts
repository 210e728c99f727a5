// Messages out, one Bot API call each: markdown → Telegram HTML, buttons → an inline keyboard,
// progress messages sent silently. Ordering, pacing, retries and the plain-text resend after a
// FormattingError are the core's; a text that renders longer than Telegram allows is reported
// as a FormattingError before it is even sent, so the core sends the words plain.
import type { Api } from "grammy/web";
import type { InlineKeyboardMarkup } from "grammy/types";
import { FormattingError, PlatformError } from "../../kernel/errors.js";
import type { Button, MessageRef, OutboundMessage } from "../contract.js";
import { isNotModifiedError, toPlatformError } from "./errors.js";
import { markdownToTelegramHtml, visibleLength } from "./markdown.js";
import type { TelegramRoute } from "./routes.js";

/** Telegram's limit: characters of a message's text after entity parsing. */
const TELEGRAM_MAX_TEXT_CHARS = 4096;
/** A bound on the markup itself, so a text full of `<` (4× growth as `&lt;`) stays a sane request. */
const MAX_HTML_CHARS = 4 * TELEGRAM_MAX_TEXT_CHARS;
/** Telegram's cap on callback_data. */
const MAX_CALLBACK_DATA_BYTES = 64;
const QUIET_KINDS: ReadonlySet<string> = new Set(["tool", "thought", "plan", "notice", "usage"]);
/** Telegram refuses an empty message; an empty block still needs a visible placeholder. */
const EMPTY_TEXT_PLACEHOLDER = "…";

interface Body {
  text: string;
  parse_mode?: "HTML";
  reply_markup?: InlineKeyboardMarkup;
}

export class TelegramOutbound {
  constructor(
    private readonly api: Api,
    private readonly token: string,
  ) {}

  async send(target: TelegramRoute, message: OutboundMessage): Promise<MessageRef> {
    const { text, ...body } = bodyOf(message);
    try {
      const sent = await this.api.sendMessage(target.chatId, text, {
        ...body,
        message_thread_id: target.threadId,
        disable_notification: isQuiet(message) || undefined,
        link_preview_options: { is_disabled: true },
      });
      return { id: String(sent.message_id) };
    } catch (error) {
      throw toPlatformError(error, "send a message", this.token);
    }
  }

  async edit(target: TelegramRoute, ref: MessageRef, message: OutboundMessage): Promise<void> {
    const { text, ...body } = bodyOf(message);
    try {
      await this.api.editMessageText(target.chatId, messageIdOf(ref), text, { ...body, link_preview_options: { is_disabled: true } });
    } catch (error) {
      // An edit that changes nothing is what the core asked for already.
      if (isNotModifiedError(error)) return;
      throw toPlatformError(error, "edit a message", this.token);
    }
  }

  async typing(target: TelegramRoute): Promise<void> {
    try {
      await this.api.sendChatAction(target.chatId, "typing", { message_thread_id: target.threadId });
    } catch (error) {
      throw toPlatformError(error, "show the typing indicator", this.token);
    }
  }
}

function bodyOf(message: OutboundMessage): Body {
  const markdown = message.text.trim() === "" ? EMPTY_TEXT_PLACEHOLDER : message.text;
  const reply_markup = keyboardOf(message.buttons);
  if (message.format === "plain") return { text: markdown, reply_markup };
  const html = markdownToTelegramHtml(markdown);
  if (html.trim() === "") return { text: markdown, reply_markup };
  if (visibleLength(html) > TELEGRAM_MAX_TEXT_CHARS || html.length > MAX_HTML_CHARS) {
    throw new FormattingError("The formatted message is too long for Telegram.", { detail: `rendered ${visibleLength(html)} visible characters` });
  }
  return { text: html, parse_mode: "HTML", reply_markup };
}

/** Progress (tool lines, thoughts, plans, notices) arrives silently; answers, approvals and errors notify. */
function isQuiet(message: OutboundMessage): boolean {
  return message.kind !== undefined && QUIET_KINDS.has(message.kind);
}

function keyboardOf(buttons: Button[][] | undefined): InlineKeyboardMarkup | undefined {
  if (!buttons || buttons.length === 0) return undefined;
  return {
    inline_keyboard: buttons.map((row) =>
      row.map((button) => {
        if (Buffer.byteLength(button.id, "utf8") > MAX_CALLBACK_DATA_BYTES) {
          throw new PlatformError("A button could not be shown on Telegram.", { reason: "refused", detail: `button id longer than ${MAX_CALLBACK_DATA_BYTES} bytes` });
        }
        return { text: button.label, callback_data: button.id };
      }),
    ),
  };
}

function messageIdOf(ref: MessageRef): number {
  const id = Number(ref.id);
  if (!Number.isSafeInteger(id) || id <= 0) throw new PlatformError("That Telegram message cannot be found.", { reason: "refused", detail: `bad message ref ${ref.id}` });
  return id;
}

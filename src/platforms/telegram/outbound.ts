// Sending and editing: markdown → Telegram HTML, split to the limit, paced by the chat's send
// budget, resent as plain text when Telegram rejects the entities. A message whose text outgrows
// one Telegram message while it streams keeps "continuation" messages, edited along with it.
// Edits of one message never overlap; those that pile up collapse into the newest (latest-wins.ts).
import type { Api } from "grammy";
import type { InlineKeyboardMarkup } from "grammy/types";
import { PlatformError } from "../../kernel/errors.js";
import type { Button, MessageRef, OutboundMessage, PlatformLogger } from "../contract.js";
import type { ChatSendBudget } from "./budget.js";
import { isEntityParseError, isNotModifiedError, toPlatformError } from "./errors.js";
import { LatestWins } from "./latest-wins.js";
import { isGroupChatId, type TelegramRoute } from "./routes.js";
import { renderForTelegram, splitPlain, type RenderedPiece } from "./split.js";

/** Telegram's cap on callback_data. */
const MAX_CALLBACK_DATA_BYTES = 64;
type MessageChange = { message: OutboundMessage; markup: InlineKeyboardMarkup | undefined } | "delete";

const MAX_REMEMBERED_CONTINUATIONS = 1000;
const QUIET_KINDS: ReadonlySet<string> = new Set(["tool", "thought", "plan", "notice"]);
/** Telegram refuses an empty message; an empty block still needs a visible placeholder. */
const EMPTY_TEXT_PLACEHOLDER = "…";

export class TelegramOutbound {
  /** `<chat>:<message id>` → ids of the messages that carry the rest of its text. */
  private readonly continuations = new Map<string, number[]>();
  /** Edits and deletes of one message, applied one at a time, newest first. */
  private readonly changes = new LatestWins<MessageChange>();

  constructor(
    private readonly api: Api,
    private readonly budget: ChatSendBudget,
    private readonly token: string,
    private readonly log: () => PlatformLogger | undefined,
  ) {}

  async send(target: TelegramRoute, message: OutboundMessage): Promise<MessageRef> {
    const pieces = piecesOf(message);
    const markup = keyboardOf(message.buttons);
    const ids: number[] = [];
    for (const [index, piece] of pieces.entries()) {
      ids.push(await this.sendPiece(target, piece, index === pieces.length - 1 ? markup : undefined, isQuiet(message)));
    }
    if (ids.length > 1) this.rememberContinuations(continuationKey(target, ids[0]), ids.slice(1));
    return { id: String(ids[0]) };
  }

  async edit(target: TelegramRoute, ref: MessageRef, message: OutboundMessage): Promise<void> {
    const primaryId = parseMessageId(ref);
    const markup = keyboardOf(message.buttons); // a bad button fails this caller, not the stream
    await this.changes.submit(continuationKey(target, primaryId), { message, markup }, (latest) => this.applyChange(target, primaryId, latest));
  }

  async delete(target: TelegramRoute, ref: MessageRef): Promise<void> {
    const primaryId = parseMessageId(ref);
    await this.changes.submit(continuationKey(target, primaryId), "delete", (latest) => this.applyChange(target, primaryId, latest));
  }

  /** The same function for every change of a message: whichever call started the worker, the newest change is applied. */
  private async applyChange(target: TelegramRoute, primaryId: number, change: MessageChange): Promise<void> {
    if (change === "delete") return this.applyDelete(target, primaryId);
    const pieces = piecesOf(change.message);
    const key = continuationKey(target, primaryId);
    const ids = [primaryId, ...(this.continuations.get(key) ?? [])];
    for (const [index, piece] of pieces.entries()) {
      const pieceMarkup = index === pieces.length - 1 ? change.markup : undefined;
      if (index < ids.length) await this.editPiece(target, ids[index], piece, pieceMarkup);
      else {
        ids.push(await this.sendPiece(target, piece, pieceMarkup, isQuiet(change.message)));
        this.rememberContinuations(key, ids.slice(1)); // at once, so a failure later still knows it
      }
    }
    // The text shrank: continuations it no longer needs go away.
    for (const surplus of ids.splice(pieces.length)) await this.deleteMessage(target, surplus);
    if (ids.length > 1) this.rememberContinuations(key, ids.slice(1));
    else this.continuations.delete(key);
  }

  private async applyDelete(target: TelegramRoute, primaryId: number): Promise<void> {
    const key = continuationKey(target, primaryId);
    for (const id of [primaryId, ...(this.continuations.get(key) ?? [])]) await this.deleteMessage(target, id);
    this.continuations.delete(key);
  }

  private rememberContinuations(key: string, ids: number[]): void {
    this.continuations.delete(key);
    this.continuations.set(key, ids);
    // Only recent messages are still edited; forget the oldest (Map keeps insertion order).
    if (this.continuations.size > MAX_REMEMBERED_CONTINUATIONS) this.continuations.delete(this.continuations.keys().next().value!);
  }

  async typing(target: TelegramRoute): Promise<void> {
    // Not paced by the budget: chat actions are not messages, and a late "typing" is worthless.
    try {
      await this.api.sendChatAction(target.chatId, "typing", { message_thread_id: target.threadId });
    } catch (error) {
      throw toPlatformError(error, "show the typing indicator", this.token);
    }
  }

  private async sendPiece(target: TelegramRoute, piece: RenderedPiece, markup: InlineKeyboardMarkup | undefined, quiet: boolean): Promise<number> {
    const attempt = (asHtml: boolean) =>
      this.paced(target, () =>
        this.api.sendMessage(target.chatId, asHtml ? piece.html : piece.markdown, {
          parse_mode: asHtml ? "HTML" : undefined,
          message_thread_id: target.threadId,
          reply_markup: markup,
          disable_notification: quiet || undefined,
          link_preview_options: { is_disabled: true },
        }),
      );
    try {
      return (await this.withPlainFallback(piece, attempt, "send a message")).message_id;
    } catch (error) {
      throw toPlatformError(error, "send a message", this.token);
    }
  }

  private async editPiece(target: TelegramRoute, messageId: number, piece: RenderedPiece, markup: InlineKeyboardMarkup | undefined): Promise<void> {
    const attempt = (asHtml: boolean) =>
      this.paced(target, () =>
        this.api.editMessageText(target.chatId, messageId, asHtml ? piece.html : piece.markdown, {
          parse_mode: asHtml ? "HTML" : undefined,
          reply_markup: markup,
          link_preview_options: { is_disabled: true },
        }),
      );
    try {
      await this.withPlainFallback(piece, attempt, "edit a message");
    } catch (error) {
      if (isNotModifiedError(error)) return;
      throw toPlatformError(error, "edit a message", this.token);
    }
  }

  /** Sends as HTML; when Telegram cannot parse our entities, the same text goes again as plain text. */
  private async withPlainFallback<T>(piece: RenderedPiece, attempt: (asHtml: boolean) => Promise<T>, what: string): Promise<T> {
    if (piece.html === "") return attempt(false);
    try {
      return await attempt(true);
    } catch (error) {
      if (!isEntityParseError(error)) throw error;
      this.log()?.warn({ detail: toPlatformError(error, what, this.token).message }, "telegram: entities rejected, resending as plain text");
      return attempt(false);
    }
  }

  private async deleteMessage(target: TelegramRoute, messageId: number): Promise<void> {
    try {
      await this.paced(target, () => this.api.deleteMessage(target.chatId, messageId));
    } catch (error) {
      throw toPlatformError(error, "delete a message", this.token);
    }
  }

  private paced<T>(target: TelegramRoute, call: () => Promise<T>): Promise<T> {
    return this.budget.schedule(String(target.chatId), isGroupChatId(target.chatId), call);
  }
}

function piecesOf(message: OutboundMessage): RenderedPiece[] {
  const text = message.text.trim() === "" ? EMPTY_TEXT_PLACEHOLDER : message.text;
  if (message.format === "plain") return splitPlain(text).map((piece) => ({ markdown: piece, html: "" }));
  return renderForTelegram(text).map((piece) => (piece.html.trim() === "" ? { markdown: piece.markdown, html: "" } : piece));
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

function parseMessageId(ref: MessageRef): number {
  const id = Number(ref.id);
  if (!Number.isSafeInteger(id) || id <= 0) throw new PlatformError("That Telegram message cannot be found.", { reason: "refused", detail: `bad message ref ${ref.id}` });
  return id;
}

function continuationKey(target: TelegramRoute, messageId: number): string {
  return `${target.chatId}:${messageId}`;
}

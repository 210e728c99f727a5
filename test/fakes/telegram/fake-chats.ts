// The chat side of the fake Bot API: chats, the messages in them, simulated users sending text,
// files and button presses, and a pacing check over what the bot sent.
import type { Chat, Message, MessageEntity, Update, User } from "grammy/types";
import type { SentMedia } from "./fake-media.js";

export interface BotMessage {
  chatId: number;
  messageId: number;
  threadId?: number;
  /** Visible text now (after HTML parsing). */
  text: string;
  /** Every text it has had, first to last: the stream of edits. */
  history: string[];
  replyMarkup?: { inline_keyboard: Array<Array<{ text: string; callback_data: string }>> };
  deleted: boolean;
  /** A photo or document the bot sent (its caption is `text`). */
  media?: SentMedia;
}

export interface UserSendOptions {
  chat: Chat;
  from: User;
  text?: string;
  /** Forum topic: the message belongs to this topic (`is_topic_message`). */
  threadId?: number;
  /** Replies to this message (e.g. one of the bot's). */
  replyTo?: number;
  document?: { file_id: string; file_unique_id: string; file_size: number; file_name: string; mime_type?: string };
  /** Photo sizes, smallest first, as Telegram sends them. */
  photo?: Array<{ file_id: string; file_unique_id: string; file_size: number; width: number; height: number }>;
  /** A voice note (OGG/Opus), as Telegram's voice recorder sends it. */
  voice?: { file_id: string; file_unique_id: string; file_size: number; duration: number; mime_type?: string };
}

export const privateChat = (user: User): Chat => ({ id: user.id, type: "private", first_name: user.first_name }) as Chat;
export const groupChat = (id: number, title = "group"): Chat => ({ id, type: "supergroup", title }) as Chat;
export const forumChat = (id: number, title = "forum"): Chat => ({ id, type: "supergroup", title, is_forum: true }) as Chat;
export const user = (id: number, first_name: string, username?: string): User => ({ id, is_bot: false, first_name, username });

export abstract class FakeChats {
  readonly bot: User & { username: string };
  private readonly messages: Array<BotMessage | Message> = [];
  private readonly botMessages: BotMessage[] = [];
  private nextMessageId = 1000;
  private nextCallbackId = 1;

  protected constructor(bot: Partial<User>) {
    this.bot = { id: 4242, is_bot: true, first_name: "Baton", username: "baton_test_bot", ...bot } as User & { username: string };
  }

  protected abstract pushUpdate(update: Omit<Update, "update_id">): Update;
  protected abstract editFailure(reason: "missing" | "unchanged"): Error;

  /** What the bot has in a chat (or one topic of it), oldest first, deleted ones left out. */
  sentTo(chatId: number, threadId?: number): BotMessage[] {
    return this.botMessages.filter((m) => m.chatId === chatId && !m.deleted && (threadId === undefined || m.threadId === threadId));
  }

  /** A user writes; entities for a leading /command and @mentions are computed as Telegram does. */
  userSends(options: UserSendOptions): Message {
    const text = options.text ?? "";
    const message = {
      message_id: this.nextMessageId++,
      date: Math.floor(Date.now() / 1000),
      chat: options.chat,
      from: options.from,
      ...(options.document || options.photo || options.voice
        ? { document: options.document, photo: options.photo, voice: options.voice, caption: text || undefined, caption_entities: entitiesOf(text) }
        : { text, entities: entitiesOf(text) }),
      ...(options.threadId !== undefined ? { message_thread_id: options.threadId, is_topic_message: true } : {}),
    } as Message;
    const replyTo = options.replyTo ?? options.threadId;
    if (replyTo !== undefined) {
      const original = this.botMessages.find((m) => m.messageId === replyTo && m.chatId === options.chat.id);
      (message as any).reply_to_message = original
        ? { message_id: original.messageId, date: message.date, chat: options.chat, from: this.bot, text: original.text }
        : { message_id: replyTo, date: message.date, chat: options.chat, from: options.from };
    }
    this.messages.push(message);
    this.pushUpdate({ message } as Omit<Update, "update_id">);
    return message;
  }

  /** A user presses an inline button of a bot message; returns the callback query id. */
  userPresses(from: User, botMessage: BotMessage, callbackData: string): string {
    const id = String(this.nextCallbackId++);
    const chat =
      (this.messages.find((m) => "chat" in m && m.chat.id === botMessage.chatId) as Message | undefined)?.chat ??
      ({ id: botMessage.chatId, type: botMessage.chatId > 0 ? "private" : "supergroup" } as Chat);
    const message = {
      message_id: botMessage.messageId,
      date: Math.floor(Date.now() / 1000),
      chat,
      from: this.bot,
      text: botMessage.text,
      ...(botMessage.threadId !== undefined ? { message_thread_id: botMessage.threadId, is_topic_message: true } : {}),
    };
    this.pushUpdate({ callback_query: { id, from, chat_instance: "1", data: callbackData, message } } as Omit<Update, "update_id">);
    return id;
  }

  protected recordBotMessage(chatId: number, threadId: number | undefined, text: string, replyMarkup: BotMessage["replyMarkup"], media?: SentMedia): Message {
    const record: BotMessage = { chatId: Number(chatId), messageId: this.nextMessageId++, threadId, text, history: [text], replyMarkup, deleted: false, media };
    this.botMessages.push(record);
    return this.asMessage(record);
  }

  protected editBotMessage(chatId: number, messageId: number, text: string, replyMarkup: BotMessage["replyMarkup"]): Message {
    const record = this.botMessages.find((m) => m.chatId === Number(chatId) && m.messageId === Number(messageId) && !m.deleted);
    if (!record) throw this.editFailure("missing");
    if (record.text === text && JSON.stringify(record.replyMarkup) === JSON.stringify(replyMarkup)) throw this.editFailure("unchanged");
    record.text = text;
    record.history.push(text);
    // Like Telegram: an edit without reply_markup removes the inline keyboard.
    record.replyMarkup = replyMarkup;
    return this.asMessage(record);
  }

  protected removeBotMessage(chatId: number, messageId: number): boolean {
    const record = this.botMessages.find((m) => m.chatId === Number(chatId) && m.messageId === Number(messageId) && !m.deleted);
    if (record) record.deleted = true;
    return record !== undefined;
  }

  private asMessage(record: BotMessage): Message {
    return {
      message_id: record.messageId,
      date: Math.floor(Date.now() / 1000),
      chat: { id: record.chatId, type: record.chatId > 0 ? "private" : "supergroup" },
      from: this.bot,
      ...(record.media ? mediaFields(record.media, record.messageId, record.text) : { text: record.text }),
      ...(record.threadId !== undefined ? { message_thread_id: record.threadId, is_topic_message: true } : {}),
      ...(record.replyMarkup ? { reply_markup: record.replyMarkup } : {}),
    } as Message;
  }
}

function entitiesOf(text: string): MessageEntity[] {
  const entities: MessageEntity[] = [];
  const command = /^\/[A-Za-z0-9_]{1,32}(@[A-Za-z0-9_]{3,32})?/.exec(text);
  if (command) entities.push({ type: "bot_command", offset: 0, length: command[0].length });
  for (const mention of text.matchAll(/(^|[^\w/])(@[A-Za-z0-9_]{5,32})/g)) {
    entities.push({ type: "mention", offset: mention.index! + mention[1].length, length: mention[2].length });
  }
  return entities;
}

function mediaFields(media: SentMedia, messageId: number, caption: string): Record<string, unknown> {
  const file = { file_id: `sent-${messageId}`, file_unique_id: `usent-${messageId}`, file_size: media.size };
  const shown = caption ? { caption } : {};
  if (media.kind === "photo") return { photo: [{ ...file, width: 2, height: 2 }], ...shown };
  return { document: { ...file, file_name: media.name, mime_type: media.mimeType }, ...shown };
}

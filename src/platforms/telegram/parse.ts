// Inbound updates → what the core understands. Decides whether the bot was addressed (a DM, a
// command, `/cmd@bot`, a mention, a reply to the bot) and strips the mention from the text.
// Attachments are only described here; files.ts downloads them.
import type { Message, MessageEntity, User } from "grammy/types";
import type { InboundMessage, PlatformUser } from "../contract.js";
import { chatLevelRoute, formatTelegramRoute, telegramUserId } from "./routes.js";

export interface BotIdentity {
  id: number;
  username: string;
}

export interface ParseOptions {
  instance: string;
  bot: BotIdentity;
  allowGroups: boolean;
  /** Routes (a chat, or a chat's topic) where every message counts as addressed. */
  listenAllIn: ReadonlySet<string>;
}

export interface AttachmentRef {
  fileId: string;
  fileUniqueId: string;
  name: string;
  mimeType?: string;
  size?: number;
}

export type ParsedMessage =
  | { kind: "inbound"; message: Omit<InboundMessage, "files">; attachments: AttachmentRef[] }
  | { kind: "ignored"; reason: string };

export function telegramUser(user: User): PlatformUser {
  const fullName = [user.first_name, user.last_name].filter(Boolean).join(" ");
  return { id: telegramUserId(user.id), name: user.username ? `@${user.username}` : fullName || undefined };
}

/** The route of a message: forum topics are their own route; plain reply threads are not. */
export function routeOfMessage(instance: string, message: Pick<Message, "chat" | "message_thread_id" | "is_topic_message">): string {
  const threadId = message.is_topic_message ? message.message_thread_id : undefined;
  return formatTelegramRoute(instance, message.chat.id, threadId);
}

export function parseMessage(message: Message, options: ParseOptions): ParsedMessage {
  if (!message.from || message.from.is_bot) return { kind: "ignored", reason: "sent by a bot or a channel" };
  const direct = message.chat.type === "private";
  if (!direct && message.chat.type === "channel") return { kind: "ignored", reason: "channel post" };
  if (!direct && !options.allowGroups) return { kind: "ignored", reason: "groups are disabled (allow_groups: false)" };

  const text = message.text ?? message.caption ?? "";
  const entities = message.entities ?? message.caption_entities ?? [];
  const route = routeOfMessage(options.instance, message);
  const address = findAddressing(message, text, entities, options.bot);
  if (address.commandForOtherBot) return { kind: "ignored", reason: "command for another bot" };

  // Listing a chat covers all its topics; listing one topic covers only that topic.
  const listensToAll = options.listenAllIn.has(route) || options.listenAllIn.has(chatLevelRoute(options.instance, message.chat.id));
  const addressed = direct || address.addressed || listensToAll;
  if (!addressed) return { kind: "ignored", reason: "group message not addressed to the bot" };

  return {
    kind: "inbound",
    message: {
      route,
      user: telegramUser(message.from),
      text: removeRanges(text, address.strip),
      addressed: true,
      direct,
      messageId: String(message.message_id),
    },
    attachments: attachmentsOf(message),
  };
}

interface Addressing {
  addressed: boolean;
  commandForOtherBot: boolean;
  /** UTF-16 ranges of the text to remove: the bot's mention, the `@bot` of `/cmd@bot`. */
  strip: Array<{ offset: number; length: number }>;
}

function findAddressing(message: Message, text: string, entities: MessageEntity[], bot: BotIdentity): Addressing {
  const result: Addressing = { addressed: false, commandForOtherBot: false, strip: [] };
  const botMention = `@${bot.username}`.toLowerCase();
  for (const entity of entities) {
    const value = text.slice(entity.offset, entity.offset + entity.length);
    if (entity.type === "bot_command" && entity.offset === 0) {
      const at = value.indexOf("@");
      if (at === -1) {
        result.addressed = true;
      } else if (value.slice(at).toLowerCase() === botMention) {
        result.addressed = true;
        result.strip.push({ offset: entity.offset + at, length: entity.length - at });
      } else {
        result.commandForOtherBot = true;
      }
    } else if (entity.type === "mention" && value.toLowerCase() === botMention) {
      result.addressed = true;
      result.strip.push({ offset: entity.offset, length: entity.length });
    } else if (entity.type === "text_mention" && entity.user.id === bot.id) {
      result.addressed = true;
      result.strip.push({ offset: entity.offset, length: entity.length });
    }
  }
  const reply = message.reply_to_message;
  // In a forum topic every message "replies" to the topic's first message; that is not addressing.
  const implicitTopicReply = message.is_topic_message && reply?.message_id === message.message_thread_id;
  if (reply?.from?.id === bot.id && !implicitTopicReply) result.addressed = true;
  return result;
}

/** Removes ranges and one space next to each, so "hey @bot do it" becomes "hey do it". */
function removeRanges(text: string, ranges: Array<{ offset: number; length: number }>): string {
  let result = text;
  for (const range of [...ranges].sort((a, b) => b.offset - a.offset)) {
    let start = range.offset;
    let end = range.offset + range.length;
    if (result[end] === " ") end++;
    else if (start > 0 && result[start - 1] === " ") start--;
    result = result.slice(0, start) + result.slice(end);
  }
  return result.trim();
}

function attachmentsOf(message: Message): AttachmentRef[] {
  const attachments: AttachmentRef[] = [];
  if (message.photo && message.photo.length > 0) {
    // Sizes come smallest first; the largest is the one worth reading.
    const photo = message.photo[message.photo.length - 1];
    attachments.push({ fileId: photo.file_id, fileUniqueId: photo.file_unique_id, name: `photo-${photo.file_unique_id}.jpg`, mimeType: "image/jpeg", size: photo.file_size });
  }
  const documentLike = [message.document, message.audio, message.video, message.voice, message.animation];
  for (const file of documentLike) {
    // A GIF arrives as both `animation` and `document`: keep one.
    if (!file || attachments.some((known) => known.fileUniqueId === file.file_unique_id)) continue;
    const name = "file_name" in file && file.file_name ? file.file_name : `file-${file.file_unique_id}${extensionFor(file.mime_type)}`;
    attachments.push({ fileId: file.file_id, fileUniqueId: file.file_unique_id, name, mimeType: file.mime_type, size: file.file_size });
  }
  return attachments;
}

function extensionFor(mimeType: string | undefined): string {
  const known: Record<string, string> = { "audio/ogg": ".ogg", "audio/mpeg": ".mp3", "video/mp4": ".mp4", "image/gif": ".gif" };
  return mimeType ? known[mimeType] ?? "" : "";
}

// Inbound updates → facts for the core: the route, the sender, a direct chat or not, the bot's
// mentions (as they appear in the text, for the core to remove), a reply to the bot, the chat a
// forum topic belongs to. Whether that makes the message addressed is the core's decision.
// Attachments are only described here; files.ts turns them into descriptors the core may fetch.
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
}

export interface AttachmentRef {
  fileId: string;
  fileUniqueId: string;
  name: string;
  mimeType?: string;
  size?: number;
}

export type ParsedMessage = { kind: "inbound"; message: Omit<InboundMessage, "files">; attachments: AttachmentRef[] } | { kind: "ignored"; reason: string };

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
  const chatRoute = chatLevelRoute(options.instance, message.chat.id);
  const reply = message.reply_to_message;
  // In a forum topic every message "replies" to the topic's first message; that is not a reply to the bot.
  const implicitTopicReply = message.is_topic_message && reply?.message_id === message.message_thread_id;
  return {
    kind: "inbound",
    message: {
      route,
      user: telegramUser(message.from),
      text,
      messageId: String(message.message_id),
      direct,
      mentions: botMentions(text, entities, options.bot),
      replyToBot: reply?.from?.id === options.bot.id && !implicitTopicReply,
      scopes: route === chatRoute ? undefined : [chatRoute],
    },
    attachments: attachmentsOf(message),
  };
}

/** The substrings of the text that mention the bot: `@bot`, the `@bot` of `/cmd@bot`, a text mention of it. */
function botMentions(text: string, entities: MessageEntity[], bot: BotIdentity): string[] {
  const botMention = `@${bot.username}`.toLowerCase();
  const found: string[] = [];
  for (const entity of entities) {
    const value = text.slice(entity.offset, entity.offset + entity.length);
    if (entity.type === "bot_command" && entity.offset === 0) {
      const at = value.indexOf("@");
      if (at !== -1 && value.slice(at).toLowerCase() === botMention) found.push(value.slice(at));
    } else if (entity.type === "mention" && value.toLowerCase() === botMention) found.push(value);
    else if (entity.type === "text_mention" && entity.user.id === bot.id) found.push(value);
  }
  return found;
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
  return mimeType ? (known[mimeType] ?? "") : "";
}

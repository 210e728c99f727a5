// Facts about one Discord message, read from the gateway's MESSAGE_CREATE payload: who wrote it,
// where, whether it mentions the bot (the exact `<@id>` substrings, so the core can strip them),
// whether it replies to the bot, and its attachments. No decisions here: the core decides whether
// the message is for Baton.
import type { GatewayMessageCreateDispatchData } from "discord.js";

/** Message types people write: DEFAULT and REPLY (joins, pins, boosts … are not). */
const PERSON_MESSAGE_TYPES = new Set([0, 19]);

export interface DiscordAttachmentFacts {
  name: string;
  mimeType?: string;
  size: number;
  url: string;
}

export interface DiscordMessageFacts {
  messageId: string;
  channelId: string;
  guildId?: string;
  userId: string;
  userName: string;
  /** The author's role ids in the server (a guild message carries them); undefined in a DM. */
  roles?: readonly string[];
  text: string;
  /** A DM with the bot. */
  direct: boolean;
  /** The channel's type when the gateway says it (`channel_type`; not in every payload). */
  channelType?: number;
  /** The exact substrings of `text` that mention the bot. */
  mentions: string[];
  /** A reply to one of the bot's messages. */
  replyToBot: boolean;
  attachments: DiscordAttachmentFacts[];
}

/** The facts of a message a person wrote; undefined for the bot's own, other bots', webhooks' and system messages. */
export function messageFacts(message: GatewayMessageCreateDispatchData, botUserId: string): DiscordMessageFacts | undefined {
  if (message.author.bot || message.webhook_id || !PERSON_MESSAGE_TYPES.has(message.type)) return undefined;
  const channelType = (message as { channel_type?: number }).channel_type;
  const text = message.content ?? "";
  return {
    messageId: message.id,
    channelId: message.channel_id,
    guildId: message.guild_id,
    userId: message.author.id,
    userName: message.member?.nick ?? message.author.global_name ?? message.author.username,
    roles: message.member?.roles,
    text,
    direct: message.guild_id === undefined,
    channelType,
    mentions: botMentions(text, botUserId),
    replyToBot: message.referenced_message?.author?.id === botUserId,
    attachments: (message.attachments ?? []).map((attachment) => ({
      name: attachment.filename,
      mimeType: attachment.content_type,
      size: attachment.size,
      url: attachment.url,
    })),
  };
}

/** `<@id>` and the older `<@!id>` (nickname) forms, each occurrence as written. */
export function botMentions(text: string, botUserId: string): string[] {
  return text.match(new RegExp(`<@!?${botUserId}>`, "g")) ?? [];
}

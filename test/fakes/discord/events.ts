// Which session gets a message event and what it sees, by the intents it identified with: guild
// messages need GuildMessages, DMs need DirectMessages, and without the privileged MessageContent
// intent a guild message's content, attachments and components arrive empty unless the message
// mentions the bot or is the bot's own (Discord's rule since 2022). Message events carry
// `channel_type` as Discord's do (discord.js needs it to build a DM channel it has not seen).
import type { EventFor, GatewaySession } from "./gateway.js";
import { Intent, type FakeMessage, type FakeWorld } from "./model.js";

export function messageEventFor(world: FakeWorld, message: FakeMessage): EventFor {
  return (session: GatewaySession) => {
    if (message.visibleTo !== undefined) return undefined;
    const needed = message.guildId ? Intent.GuildMessages : Intent.DirectMessages;
    if ((session.intents & needed) === 0) return undefined;
    const api = { ...world.apiMessage(message), channel_type: world.channels.get(message.channelId)?.type };
    const readable = !message.guildId || (session.intents & Intent.MessageContent) !== 0 || message.authorId === world.bot.id || message.mentions.includes(world.bot.id);
    return readable ? api : { ...api, content: "", attachments: [], components: [], embeds: [] };
  };
}

/** THREAD_CREATE and other guild-channel events reach sessions with the Guilds intent. */
export function guildEventFor(payload: Record<string, unknown>): EventFor {
  return (session: GatewaySession) => ((session.intents & Intent.Guilds) !== 0 ? payload : undefined);
}

/** TYPING_START: a person's client says they are typing; it reaches sessions with the typing intent of the channel's kind. */
export function typingEventFor(channel: { id: string; guildId?: string }, userId: string, at: number): EventFor {
  const needed = channel.guildId ? Intent.GuildMessageTyping : Intent.DirectMessageTyping;
  const payload = { channel_id: channel.id, user_id: userId, timestamp: Math.floor(at / 1000), ...(channel.guildId ? { guild_id: channel.guildId } : {}) };
  return (session: GatewaySession) => ((session.intents & needed) !== 0 ? payload : undefined);
}

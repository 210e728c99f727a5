// The world the Discord fake keeps: one application and its bot user, people, guilds with text
// channels, threads, DM channels and messages, plus the builders that turn them into the JSON
// objects Discord's API v10 sends (the shapes discord.js 14 parses). Ids are real-looking
// snowflakes (timestamp since the Discord epoch << 22 | counter), so discord.js can read times.

/** Discord's epoch (2015-01-01) in ms; snowflakes count from it. */
const DISCORD_EPOCH_MS = 1_420_070_400_000n;

export const ChannelType = { GuildText: 0, DM: 1, PublicThread: 11 } as const;
export const MessageFlag = { SuppressEmbeds: 1 << 2, Ephemeral: 1 << 6, Loading: 1 << 7 } as const;
export const Intent = {
  Guilds: 1 << 0,
  GuildMessages: 1 << 9,
  GuildMessageReactions: 1 << 10,
  GuildMessageTyping: 1 << 11,
  DirectMessages: 1 << 12,
  DirectMessageTyping: 1 << 14,
  MessageContent: 1 << 15,
  GuildMembers: 1 << 1,
  GuildPresences: 1 << 8,
} as const;
/** Application flags that say a privileged intent is switched on in the Developer Portal. */
export const AppFlag = {
  GatewayPresence: 1 << 12,
  GatewayPresenceLimited: 1 << 13,
  GatewayGuildMembers: 1 << 14,
  GatewayGuildMembersLimited: 1 << 15,
  GatewayMessageContent: 1 << 19,
  GatewayMessageContentLimited: 1 << 18,
} as const;

export interface FakeUser {
  id: string;
  username: string;
  bot?: boolean;
}

export interface FakeChannel {
  id: string;
  type: number;
  name?: string;
  guildId?: string;
  /** Thread: the channel it hangs off; DM: unused. */
  parentId?: string;
  /** DM: the person on the other side. */
  recipientId?: string;
  ownerId?: string;
}

export interface FakeAttachment {
  id: string;
  filename: string;
  content_type?: string;
  size: number;
  url: string;
}

export interface FakeMessage {
  id: string;
  channelId: string;
  guildId?: string;
  authorId: string;
  content: string;
  flags: number;
  components: any[];
  attachments: FakeAttachment[];
  mentions: string[];
  referenceId?: string;
  /** The interaction this message answers (deferred reply, follow-up). */
  interactionId?: string;
  /** Ephemeral: only this user sees it. */
  visibleTo?: string;
  threadId?: string;
  deleted?: boolean;
  editedAt?: string;
  createdAt: string;
  /** The content after the post and after every edit, in order. */
  history: string[];
}

export class FakeWorld {
  private counter = 0n;
  readonly users = new Map<string, FakeUser>();
  readonly channels = new Map<string, FakeChannel>();
  readonly guilds = new Map<string, { id: string; name: string; ownerId: string }>();
  readonly messages: FakeMessage[] = [];
  /** Each member's role ids, by `<guild id>/<user id>` (MESSAGE_CREATE, interactions and GET member carry them). */
  readonly memberRoles = new Map<string, string[]>();
  readonly bot: FakeUser;
  readonly applicationId: string;

  constructor(
    botName: string,
    public applicationFlags: number,
  ) {
    this.bot = { id: this.snowflake(), username: botName, bot: true };
    this.users.set(this.bot.id, this.bot);
    // A bot's application shares the bot user's id.
    this.applicationId = this.bot.id;
  }

  snowflake(): string {
    this.counter += 1n;
    return (((BigInt(Date.now()) - DISCORD_EPOCH_MS) << 22n) | (this.counter & 0x3fffffn)).toString();
  }

  addUser(username: string): FakeUser {
    const user = { id: this.snowflake(), username };
    this.users.set(user.id, user);
    return user;
  }

  addGuild(name: string): { id: string; name: string; ownerId: string } {
    const guild = { id: this.snowflake(), name, ownerId: this.addUser(`${name} owner`).id };
    this.guilds.set(guild.id, guild);
    return guild;
  }

  addChannel(channel: Omit<FakeChannel, "id">): FakeChannel {
    const full = { id: this.snowflake(), ...channel };
    this.channels.set(full.id, full);
    return full;
  }

  /** The DM channel between the bot and a person, created on first use as Discord does. */
  dmWith(userId: string): FakeChannel {
    for (const channel of this.channels.values()) if (channel.type === ChannelType.DM && channel.recipientId === userId) return channel;
    return this.addChannel({ type: ChannelType.DM, recipientId: userId });
  }

  message(id: string): FakeMessage | undefined {
    return this.messages.find((m) => m.id === id && !m.deleted);
  }

  user(id: string): FakeUser {
    const user = this.users.get(id);
    if (!user) throw new Error(`fake Discord: no user ${id}`);
    return user;
  }

  // ── API objects ─────────────────────────────────────────────────────────────────────────

  apiUser(user: FakeUser): Record<string, unknown> {
    return { id: user.id, username: user.username, discriminator: "0", global_name: user.bot ? null : user.username, avatar: null, bot: user.bot ?? false, public_flags: 0 };
  }

  apiMember(user: FakeUser, guildId: string): Record<string, unknown> {
    return {
      user: this.apiUser(user),
      roles: [...(this.memberRoles.get(`${guildId}/${user.id}`) ?? [])],
      joined_at: new Date().toISOString(),
      deaf: false,
      mute: false,
      flags: 0,
      pending: false,
      permissions: "2248473465835073",
      nick: null,
      avatar: null,
      communication_disabled_until: null,
      guild_id: guildId,
    };
  }

  apiChannel(channel: FakeChannel): Record<string, unknown> {
    if (channel.type === ChannelType.DM) {
      return { id: channel.id, type: ChannelType.DM, last_message_id: null, flags: 0, recipients: [this.apiUser(this.user(channel.recipientId!))] };
    }
    const base = { id: channel.id, type: channel.type, guild_id: channel.guildId, name: channel.name, flags: 0, last_message_id: null, rate_limit_per_user: 0, nsfw: false };
    if (channel.type === ChannelType.PublicThread) {
      return {
        ...base,
        parent_id: channel.parentId,
        owner_id: channel.ownerId,
        message_count: 0,
        member_count: 1,
        total_message_sent: 0,
        thread_metadata: { archived: false, auto_archive_duration: 1440, archive_timestamp: new Date().toISOString(), locked: false, create_timestamp: new Date().toISOString() },
      };
    }
    return { ...base, position: 0, parent_id: null, topic: null, permission_overwrites: [] };
  }

  apiMessage(message: FakeMessage): Record<string, unknown> {
    const author = this.user(message.authorId);
    const referenced = message.referenceId ? this.message(message.referenceId) : undefined;
    return {
      id: message.id,
      type: referenced ? 19 : message.interactionId ? 20 : 0,
      channel_id: message.channelId,
      ...(message.guildId ? { guild_id: message.guildId, member: stripUser(this.apiMember(author, message.guildId)) } : {}),
      author: this.apiUser(author),
      content: message.content,
      timestamp: message.createdAt,
      edited_timestamp: message.editedAt ?? null,
      tts: false,
      mention_everyone: false,
      mentions: message.mentions.map((id) => this.apiUser(this.user(id))),
      mention_roles: [],
      attachments: message.attachments.map((a) => ({ ...a, proxy_url: a.url })),
      embeds: [],
      components: message.components,
      pinned: false,
      flags: message.flags,
      ...(referenced
        ? {
            message_reference: { type: 0, message_id: referenced.id, channel_id: referenced.channelId, guild_id: referenced.guildId },
            referenced_message: this.apiMessage({ ...referenced, referenceId: undefined }),
          }
        : {}),
      ...(message.threadId ? { thread: this.apiChannel(this.channels.get(message.threadId)!) } : {}),
      ...(message.interactionId ? { application_id: this.applicationId, webhook_id: this.applicationId } : {}),
    };
  }

  /** The GUILD_CREATE payload for a guild: its channels and active threads, with the bot as a member. */
  apiGuildCreate(guildId: string): Record<string, unknown> {
    const guild = this.guilds.get(guildId)!;
    const channels = [...this.channels.values()].filter((c) => c.guildId === guildId);
    return {
      id: guild.id,
      name: guild.name,
      icon: null,
      owner_id: guild.ownerId,
      unavailable: false,
      member_count: this.users.size,
      large: false,
      joined_at: new Date().toISOString(),
      features: [],
      roles: [{ id: guild.id, name: "@everyone", permissions: "2248473465835073", position: 0, color: 0, hoist: false, managed: false, mentionable: false, flags: 0 }],
      emojis: [],
      stickers: [],
      members: [this.apiMember(this.bot, guild.id)],
      channels: channels.filter((c) => c.type !== ChannelType.PublicThread).map((c) => this.apiChannel(c)),
      threads: channels.filter((c) => c.type === ChannelType.PublicThread).map((c) => this.apiChannel(c)),
      presences: [],
      voice_states: [],
      stage_instances: [],
      guild_scheduled_events: [],
      soundboard_sounds: [],
      premium_tier: 0,
      preferred_locale: "en-US",
      system_channel_flags: 0,
      verification_level: 0,
      default_message_notifications: 0,
      explicit_content_filter: 0,
      mfa_level: 0,
      nsfw_level: 0,
    };
  }
}

function stripUser(member: Record<string, unknown>): Record<string, unknown> {
  const { user: _user, ...rest } = member;
  return rest;
}

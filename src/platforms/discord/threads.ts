// What Baton knows about Discord threads: whether a channel is a thread, which channel it hangs
// off (so `listen_all_in` on a channel covers its threads), whether the bot takes part in it (a
// message there needs no mention), and starting one from a person's message (`threads: auto`).
// discord.js's channel cache (GUILD_CREATE's active threads, THREAD_CREATE) answers first; a
// channel it does not know is asked of Discord once.
import { Routes, type Client, type REST } from "discord.js";
import { BoundedSet } from "../../kernel/collections.js";

/** Discord's thread channel types: announcement, public, private. */
const THREAD_TYPES = new Set([10, 11, 12]);
/** Discord takes 1–100 characters as a thread name; a short one reads better in the channel list. */
const THREAD_NAME_CHARS = 80;
/** One day: Discord hides an idle thread after this many minutes. */
const AUTO_ARCHIVE_MINUTES = 1440;
/** Channels remembered (looked up, or written in by the bot); the oldest are forgotten first. */
const LOOKUP_MEMORY = 5_000;

export interface ChannelFacts {
  thread: boolean;
  parentId?: string;
  /** The bot started the thread or has written in it. */
  botTakesPart: boolean;
}

export class DiscordThreads {
  private readonly looked = new Map<string, { thread: boolean; parentId?: string; ownerId?: string }>();
  private readonly joined = new BoundedSet(LOOKUP_MEMORY);

  constructor(
    private readonly client: Client,
    private readonly rest: REST,
    private readonly botUserId: string,
  ) {}

  /** Facts about a guild channel; `typeHint` is the gateway's `channel_type` when it sent one. */
  async facts(channelId: string, typeHint: number | undefined): Promise<ChannelFacts> {
    const known = this.known(channelId) ?? (typeHint !== undefined && !THREAD_TYPES.has(typeHint) ? { thread: false } : await this.lookUp(channelId));
    if (!known.thread) return { thread: false, botTakesPart: false };
    const botTakesPart = known.ownerId === this.botUserId || this.joined.has(channelId) || this.botIsMember(channelId);
    return { thread: true, parentId: known.parentId, botTakesPart };
  }

  /** The bot wrote in (or started) this channel: if it is a thread, the bot takes part in it now. */
  remember(channelId: string): void {
    this.joined.add(channelId);
  }

  /** Starts a public thread from a person's message; its id is the message's id. Throws what Discord answered. */
  async startFrom(channelId: string, messageId: string, text: string): Promise<string> {
    const thread = (await this.rest.post(Routes.threads(channelId, messageId), { body: { name: threadName(text), auto_archive_duration: AUTO_ARCHIVE_MINUTES } })) as { id: string };
    this.looked.set(thread.id, { thread: true, parentId: channelId, ownerId: this.botUserId });
    this.joined.add(thread.id);
    return thread.id;
  }

  private known(channelId: string): { thread: boolean; parentId?: string; ownerId?: string } | undefined {
    const cached = this.client.channels.cache.get(channelId);
    if (cached) return cached.isThread() ? { thread: true, parentId: cached.parentId ?? undefined, ownerId: cached.ownerId ?? undefined } : { thread: false };
    return this.looked.get(channelId);
  }

  private botIsMember(channelId: string): boolean {
    const cached = this.client.channels.cache.get(channelId);
    return cached?.isThread() === true && cached.members.cache.has(this.botUserId);
  }

  private async lookUp(channelId: string): Promise<{ thread: boolean; parentId?: string; ownerId?: string }> {
    const channel = (await this.rest.get(Routes.channel(channelId))) as { type: number; parent_id?: string | null; owner_id?: string };
    const facts = THREAD_TYPES.has(channel.type) ? { thread: true, parentId: channel.parent_id ?? undefined, ownerId: channel.owner_id } : { thread: false };
    if (this.looked.size >= LOOKUP_MEMORY) this.looked.delete(this.looked.keys().next().value!);
    this.looked.set(channelId, facts);
    return facts;
  }
}

/** A thread's name from the message that starts it: its first line, without mentions. */
function threadName(text: string): string {
  const line = text
    .replace(/<@[!&]?\d+>/g, "")
    .trim()
    .split("\n")[0]
    .trim();
  if (line === "") return "Baton";
  return line.length <= THREAD_NAME_CHARS ? line : `${line.slice(0, THREAD_NAME_CHARS - 1)}…`;
}

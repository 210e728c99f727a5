// The Discord gateway's events as facts for the core: a message (in a guild, the thread it is in,
// or a new thread started from a mention with `threads: auto`), a person starting to type, and an
// interaction (a slash command becomes the chat command it stands for, a button press an action).
// A second delivery of an event (the last leader's replayed session overlaps this one's) is dropped;
// a sign that another process answers as this bot is reported.
import type { APIInteraction, APIUser } from "discord.js";
import { BoundedSet } from "../../kernel/collections.js";
import type { InboundLookup, InboundMessage, PlatformCore, PlatformUser } from "../contract.js";
import type { DiscordConnection } from "./client.js";
import { commandText } from "./commands.js";
import type { DiscordAdapterConfig } from "./config.js";
import { DiscordCode, discordCode, toPlatformError } from "./errors.js";
import { discordFile } from "./files.js";
import type { InteractionDesk } from "./interactions.js";
import { messageFacts, type DiscordMessageFacts } from "./parse.js";
import { renderMessage } from "./render.js";
import { formatDiscordRoute, qualifiedUserId } from "./routes.js";
import type { DiscordThreads } from "./threads.js";

/** Events remembered to drop a second delivery (the last leader's replayed session overlaps this one's). */
const HANDLED_MEMORY = 1000;
const INTERACTION_COMMAND = 2;
const INTERACTION_COMPONENT = 3;

/** What a started adapter has: its gateway connection and REST, its threads and interactions, and the core. */
export interface Connected {
  connection: DiscordConnection;
  threads: DiscordThreads;
  desk: InteractionDesk;
  core: PlatformCore;
}

export class DiscordInbound {
  private conflictReported = false;
  private readonly handled = new BoundedSet(HANDLED_MEMORY);

  /** `live` is the adapter's connection while it is started (events before or after it are dropped). */
  constructor(
    private readonly name: string,
    private readonly config: DiscordAdapterConfig,
    private readonly live: () => Connected | undefined,
  ) {}

  message(data: Parameters<typeof messageFacts>[0]): void {
    const live = this.live();
    if (!live || !this.handled.addIfNew(`message:${data.id}`)) return;
    const facts = messageFacts(data, live.connection.botUserId);
    if (!facts) return;
    const apiHost = this.config.api_url ? new URL(this.config.api_url).host : undefined;
    const files = facts.attachments.map((attachment) => discordFile(attachment, apiHost));
    // The core drops a redelivered message (by its id) and keeps the channel's order while the thread is looked up.
    const message: InboundMessage = {
      route: this.routeOf(facts.channelId),
      user: { id: qualifiedUserId(facts.userId), name: facts.userName, roles: facts.roles },
      text: facts.text,
      messageId: facts.messageId,
      eventId: facts.messageId,
      direct: facts.direct,
      mentions: facts.mentions,
      replyToBot: facts.replyToBot,
      files: files.length > 0 ? files : undefined,
      lookup: facts.direct ? undefined : this.lookUp(live, facts),
    };
    void this.guard("hand a message over", () => live.core.handleMessage(message));
  }

  /** A person types: the core may start their thread's agent before the message comes. The bot's own typing is not a person's. */
  typing(data: { channel_id: string; user_id: string; member?: { roles?: string[] } }): void {
    const live = this.live();
    if (!live || data.user_id === live.connection.botUserId) return;
    live.core.handleTyping?.({ route: this.routeOf(data.channel_id), user: { id: qualifiedUserId(data.user_id), roles: data.member?.roles } });
  }

  interaction(data: APIInteraction): void {
    const live = this.live();
    if (!live || (data.type !== INTERACTION_COMMAND && data.type !== INTERACTION_COMPONENT) || !data.channel?.id) return;
    if (!this.handled.addIfNew(`interaction:${data.id}`)) return;
    const person = data.member?.user ?? data.user;
    if (!person) return;
    const route = this.routeOf(data.channel.id);
    const user = { ...userOf(person), roles: data.member?.roles };
    void this.guard("answer an interaction", async () => {
      if (data.type === INTERACTION_COMMAND) {
        const text = "options" in data.data ? commandText(data.data.name, data.data.options) : commandText(data.data.name);
        if (text === undefined) return;
        if (!(await this.acknowledge(live, () => live.desk.deferCommand(data.id, data.token, route, person.id)))) return;
        await live.core.handleMessage({ route, user, text, direct: data.guild_id === undefined });
      } else if ("custom_id" in data.data) {
        const actionId = data.data.custom_id;
        if (!(await this.acknowledge(live, () => live.desk.acknowledgePress(data.id, data.token, route, person.id)))) return;
        const outcome = await live.core.handleAction({ route, user, actionId });
        if (!outcome.ok) await live.desk.tellPrivately(route, person.id, renderMessage({ text: outcome.text, kind: "notice" }));
      }
    });
  }

  /** In a guild: the thread the message is in (the bot's? in which channel?), or a new thread for a mention (threads: auto). */
  private async lookUp(live: Connected, facts: DiscordMessageFacts): Promise<InboundLookup | null> {
    const channel = await live.threads.facts(facts.channelId, facts.channelType);
    if (channel.thread) return { replyToBot: facts.replyToBot || channel.botTakesPart, scopes: channel.parentId ? [this.routeOf(channel.parentId)] : undefined };
    if (this.config.threads !== "auto" || facts.mentions.length === 0) return {};
    const threadId = await this.startThread(live, facts);
    if (threadId === null) return null;
    if (!threadId) return {};
    return { route: this.routeOf(threadId), replyToBot: true, scopes: [this.routeOf(facts.channelId)] };
  }

  /** The new thread's id; undefined to answer in the channel (no permission); null when another process took the message. */
  private async startThread(live: Connected, facts: DiscordMessageFacts): Promise<string | undefined | null> {
    try {
      return await live.threads.startFrom(facts.channelId, facts.messageId, facts.text);
    } catch (error) {
      if (discordCode(error) === DiscordCode.ThreadAlreadyCreated) {
        this.reportConflict(live, "a thread was already started from the message it was about to answer");
        return null;
      }
      live.core.log.warn(
        { platform: this.name, err: toPlatformError(error, "start a thread").message },
        "discord: could not start a thread (is Create Public Threads allowed?); answering in the channel",
      );
      return undefined;
    }
  }

  /** Acknowledges an interaction; false when that failed (another process answered it first, or it came too late). */
  private async acknowledge(live: Connected, ack: () => Promise<void>): Promise<boolean> {
    try {
      await ack();
      return true;
    } catch (error) {
      if (discordCode(error) === DiscordCode.InteractionAlreadyAcknowledged) this.reportConflict(live, "an interaction was already acknowledged");
      else live.core.log.warn({ platform: this.name, err: toPlatformError(error, "acknowledge an interaction").message }, "discord: an interaction could not be acknowledged in time");
      return false;
    }
  }

  private reportConflict(live: Connected, sign: string): void {
    const text = `${this.name}: another process is answering as this Discord bot (${sign}) — a second Baton on the same token? Stop one, or give each its own application.`;
    if (this.conflictReported) live.core.log.warn({ platform: this.name }, text);
    else live.core.log.error({ platform: this.name }, text);
    this.conflictReported = true;
  }

  private async guard(what: string, task: () => Promise<void>): Promise<void> {
    try {
      await task();
    } catch (error) {
      this.live()?.core.log.error({ platform: this.name, err: toPlatformError(error, what).message }, `discord: could not ${what}`);
    }
  }

  private routeOf(channelId: string): string {
    return formatDiscordRoute({ instance: this.name, channelId });
  }
}

function userOf(user: APIUser): PlatformUser {
  return { id: qualifiedUserId(user.id), name: user.global_name ?? user.username };
}

// DiscordAdapter: the PlatformAdapter for one Discord bot. It translates, it never routes: gateway
// events become facts for the core (inbound.ts: a mention in a text channel first starts a thread
// from the message, with `threads: auto`; slash commands become the chat commands they stand for,
// button presses actions); the core's send / edit / typing become one REST call each.
import { GatewayDispatchEvents, Routes } from "discord.js";
import { PlatformError } from "../../kernel/errors.js";
import { readFile } from "node:fs/promises";
import type { MessageRef, OutboundFile, OutboundMessage, PacingLimits, PlatformAdapter, PlatformCapabilities, PlatformCore, PlatformEnv, PlatformUser, StartInfo } from "../contract.js";
import { connectDiscord, DISCORD_INTENTS } from "./client.js";
import { GatewaySessionCursor, replayStoredSession, type StoredSession } from "./gateway-session.js";
import { commandDefinitions } from "./commands.js";
import type { DiscordAdapterConfig } from "./config.js";
import { toPlatformError } from "./errors.js";
import { type Connected, DiscordInbound } from "./inbound.js";
import { InteractionDesk } from "./interactions.js";
import { renderMessage } from "./render.js";
import { hasRole } from "./roles.js";
import { parseDiscordRoute } from "./routes.js";
import { DiscordThreads } from "./threads.js";

/** Markdown per message from the core: Discord takes 2,000 characters; escapes and padding grow the text. */
export const DISCORD_MAX_MESSAGE_CHARS = 1800;
/** Discord shows "typing…" for about 10 s; 8 s keeps it on without gaps. */
export const TYPING_INTERVAL_MS = 8000;
/** Discord takes files up to 10 MB from a bot in a server without boosts. */
const DISCORD_MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
/**
 * A channel's message calls, 5 in any 5 s: Discord's rate-limit buckets for messages (per route,
 * keyed by the channel) allow 5 per 5 s. discord.js also waits on the X-RateLimit headers of each
 * bucket; the core keeps to the figure itself so that it, not a queue inside discord.js, holds the
 * calls back: edits of a growing message then collapse into the newest text while they wait.
 * Sends and edits are counted together, the stricter reading.
 */
const DISCORD_PACING: PacingLimits = { keyWindow: { calls: 5, windowMs: 5_000 } };

export class DiscordAdapter implements PlatformAdapter {
  readonly kind = "discord";
  readonly capabilities: PlatformCapabilities;
  private live?: Connected;
  private applicationId = "";
  /** Events that arrived while start() was still setting up. */
  private early: Array<() => void> | undefined = [];
  private readonly inbound: DiscordInbound;

  constructor(
    readonly name: string,
    private readonly config: DiscordAdapterConfig,
    private readonly env: PlatformEnv,
  ) {
    this.capabilities = {
      maxMessageLength: DISCORD_MAX_MESSAGE_CHARS,
      edits: true,
      buttons: true,
      typingIntervalMs: TYPING_INTERVAL_MS,
      minEditGapMs: config.min_edit_gap_ms,
      maxUploadBytes: DISCORD_MAX_UPLOAD_BYTES,
      pacing: DISCORD_PACING,
    };
    this.inbound = new DiscordInbound(name, config, () => this.live);
  }

  async start(core: PlatformCore): Promise<StartInfo> {
    this.early = [];
    const later = (task: () => void) => (this.early ? this.early.push(task) : task());
    const debug = (message: string) => core.log.debug({ platform: this.name }, message);
    // With shared cursors (store.url), the session is kept for the instance that continues it.
    const cursor = this.env.cursors ? new GatewaySessionCursor(this.env.cursors, `discord:${this.name}:gateway-session`) : undefined;
    const stored = await cursor?.load().catch((error: Error) => void core.log.warn({ platform: this.name, err: error.message }, "discord: could not read the stored gateway session"));
    const connection = await connectDiscord(
      this.config,
      {
        messageCreate: (data) => later(() => this.inbound.message(data)),
        interactionCreate: (data) => later(() => this.inbound.interaction(data)),
        threadCreate: () => undefined,
        typingStart: (data) => later(() => this.inbound.typing(data)),
      },
      debug,
      cursor ? { keepResumable: true, onRaw: (packet, shardId, shardCount) => cursor.observe(packet, shardId, shardCount) } : {},
    );
    this.applicationId = this.config.application_id ?? connection.client.application?.id ?? connection.botUserId;
    const desk = new InteractionDesk(
      connection.rest,
      () => this.applicationId,
      (error, what) => core.log.warn({ platform: this.name, err: toPlatformError(error, what).message }, `discord: could not ${what}`),
    );
    this.live = { connection, threads: new DiscordThreads(connection.client, connection.rest, connection.botUserId), desk, core };
    await this.registerCommands(core);
    if (cursor) await this.replayMissed(cursor, stored, core, debug);
    for (const task of this.early ?? []) task();
    this.early = undefined;
    const servers = connection.guildCount;
    return { description: `${this.name}: connected as @${connection.botName} in ${servers} server${servers === 1 ? "" : "s"}` };
  }

  async stop(): Promise<void> {
    const live = this.live;
    this.live = undefined;
    live?.desk.close();
    await live?.connection.close();
  }

  async send(route: string, message: OutboundMessage): Promise<MessageRef> {
    const { connection, desk, threads } = this.require();
    const channelId = this.channelOf(route);
    try {
      const body = renderMessage(message);
      const answered = await desk.answer(route, message.kind, body);
      if (answered) return answered;
      const sent = (await connection.rest.post(Routes.channelMessages(channelId), { body })) as { id: string };
      threads.remember(channelId);
      return { id: sent.id };
    } catch (error) {
      throw toPlatformError(error, "send a message");
    }
  }

  async edit(route: string, ref: MessageRef, message: OutboundMessage): Promise<void> {
    const { connection, desk } = this.require();
    const channelId = this.channelOf(route);
    try {
      const body = renderMessage(message);
      if (await desk.editAnswer(ref.id, body)) return;
      await connection.rest.patch(Routes.channelMessage(channelId, ref.id), { body });
    } catch (error) {
      throw toPlatformError(error, "edit a message");
    }
  }

  /** One message with the file attached (Discord shows an image inline), the caption as its content. */
  async upload(route: string, file: OutboundFile): Promise<MessageRef> {
    const { connection, threads } = this.require();
    const channelId = this.channelOf(route);
    try {
      const caption = file.caption?.trim() ? renderMessage({ text: file.caption, format: file.format }) : undefined;
      const body = { ...(caption ? { content: caption.content, allowed_mentions: caption.allowed_mentions, flags: caption.flags } : {}), attachments: [{ id: 0, filename: file.name }] };
      const sent = (await connection.rest.post(Routes.channelMessages(channelId), { body, files: [{ name: file.name, data: await readFile(file.path), contentType: file.mimeType }] })) as {
        id: string;
      };
      threads.remember(channelId);
      return { id: sent.id };
    } catch (error) {
      throw toPlatformError(error, "send a file");
    }
  }

  /** Discord's message buckets are per channel (a thread is a channel of its own). */
  paceKey(route: string): { key: string; windowed: boolean } {
    return { key: this.channelOf(route), windowed: true };
  }

  async typing(route: string): Promise<void> {
    const { connection } = this.require();
    try {
      await connection.rest.post(Routes.channelTyping(this.channelOf(route)));
    } catch (error) {
      throw toPlatformError(error, "show typing");
    }
  }

  /** Private only through the user's live interaction (their command or button press); else the core answers in the conversation. */
  async notify(route: string, userId: string, text: string): Promise<void> {
    const { desk } = this.require();
    let told: boolean;
    try {
      told = await desk.tellPrivately(route, userId.replace(/^discord:/, ""), renderMessage({ text, kind: "notice" }));
    } catch (error) {
      throw toPlatformError(error, "answer privately");
    }
    if (!told) throw new PlatformError("Discord shows a message to one person only in answer to their command or button press.", { reason: "refused" });
  }

  /** `discord:role:<id>`: the role in the server of the route (from the event's member roles where it has them). */
  async memberOf(principal: string, user: PlatformUser, route: string): Promise<boolean> {
    return hasRole(this.require().connection.rest, principal, user, this.channelOf(route));
  }

  // ── start-up: what the last gateway session got, the slash commands ──────────────────────

  /** The last leader's session, resumed once: what it got while no instance was connected goes first. */
  private async replayMissed(cursor: GatewaySessionCursor, stored: StoredSession | undefined, core: PlatformCore, debug: (message: string) => void): Promise<void> {
    const { connection } = this.require();
    if (stored && stored.botUserId === connection.botUserId && stored.sessionId !== cursor.session?.sessionId) {
      const replay = await replayStoredSession(stored, { token: this.config.token, intents: DISCORD_INTENTS, rest: connection.rest, debug });
      core.log.info({ platform: this.name, resumed: replay.resumed, events: replay.events.length }, "discord: replayed what the last gateway session got while no instance was connected");
      for (const event of replay.events) {
        if (event.t === GatewayDispatchEvents.MessageCreate) this.inbound.message(event.d);
        else if (event.t === GatewayDispatchEvents.InteractionCreate) this.inbound.interaction(event.d);
      }
    }
    cursor.startSaving();
  }

  private async registerCommands(core: PlatformCore): Promise<void> {
    const { connection } = this.require();
    const body = commandDefinitions(core.commandList());
    const scopes = this.config.guilds.length > 0 ? this.config.guilds.map((guild) => Routes.applicationGuildCommands(this.applicationId, guild)) : [Routes.applicationCommands(this.applicationId)];
    for (const route of scopes) {
      try {
        await connection.rest.put(route, { body });
      } catch (error) {
        core.log.warn(
          { platform: this.name, err: toPlatformError(error, "register slash commands").message },
          "discord: slash commands not registered (is the bot in that server, invited with the applications.commands scope?)",
        );
      }
    }
  }

  private channelOf(route: string): string {
    const parsed = parseDiscordRoute(route);
    if (!parsed || parsed.instance !== this.name) {
      throw new PlatformError("That conversation is not on this Discord bot.", { reason: "refused", detail: `discord adapter ${this.name} got route ${route}` });
    }
    return parsed.channelId;
  }

  private require(): Connected {
    if (!this.live) throw new PlatformError("Discord is not connected yet.", { reason: "network", detail: `discord adapter ${this.name} used before start()` });
    return this.live;
  }
}

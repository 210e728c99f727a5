// A small, honest fake of Discord for tests, on 127.0.0.1: the REST routes Baton calls (API v10,
// reached through discord.js's `rest: { api: fake.apiUrl }`, which adds `/v10`) and the Gateway
// WebSocket that `GET /gateway/bot` points at. It records every REST call (`calls`) and gateway
// frame (`gateway.frames`), so tests assert on what Discord received.
//
// Covers (see each file's header for detail): gateway HELLO/heartbeat/IDENTIFY/READY/GUILD_CREATE,
// RESUME with replay by sequence, close codes 4004/4013/4014, intents and the MessageContent rule
// (gateway.ts, events.ts); channels, messages (create/edit/delete, 2000 chars, buttons in action
// rows, custom_id ≤ 100), threads from a message, typing, DMs, application commands (rest.ts,
// validate.ts); interactions and their webhooks (interactions.ts); rate-limit headers and 429s as
// Discord sends them (http.ts); attachments served from a CDN-like path.
// Uploads: a message with files is multipart (`payload_json` + `files[n]`), 10 MB a file, kept in
// `rest.uploads` by attachment id. Members' roles (`setRoles`) ride on MESSAGE_CREATE, interactions and
// GET /guilds/:guild/members/:user. Not covered: attachments edited later, embeds validation, reactions, permissions (the bot may
// do anything), role objects themselves, voice, sharding, presences, member lists, archived threads, message pagination.
import type { IncomingMessage, ServerResponse } from "node:http";
import { FakeGateway } from "./gateway.js";
import { FakeHttp, type BucketLimit } from "./http.js";
import { FakeInteractions, type FakeInteraction } from "./interactions.js";
import { AppFlag, ChannelType, FakeWorld, type FakeAttachment, type FakeChannel, type FakeMessage, type FakeUser } from "./model.js";
import { messageEventFor, typingEventFor } from "./events.js";
import { postMessage, registerRest, type RestState } from "./rest.js";

export { ChannelType, MessageFlag } from "./model.js";
export type { FakeAttachment, FakeChannel, FakeMessage, FakeUser } from "./model.js";
export type { FakeInteraction } from "./interactions.js";
export { visibleText } from "./visible.js";

export interface FakeDiscordOptions {
  token?: string;
  botName?: string;
  /** The MessageContent privileged intent is switched on in the Developer Portal (default true). */
  messageContentIntent?: boolean;
  /** Limit of each message route's bucket (per channel): Discord's is 5 per 5 s. */
  messageRateLimit?: BucketLimit;
  heartbeatIntervalMs?: number;
}

const MESSAGE_ROUTES = ["POST /channels/:channel/messages", "PATCH /channels/:channel/messages/:message", "DELETE /channels/:channel/messages/:message"];

export class FakeDiscord {
  readonly token: string;
  readonly world: FakeWorld;
  readonly http: FakeHttp;
  readonly gateway: FakeGateway;
  readonly interactions: FakeInteractions;
  readonly rest: RestState = { uploads: new Map(), commands: new Map(), typing: [], identifyBudget: 999 };
  readonly guild: { id: string; name: string };
  /** The guild's text channel #general. */
  readonly general: FakeChannel;
  /** Attachment downloads, in order. */
  readonly downloads: string[] = [];
  private readonly files = new Map<string, { bytes: Buffer; contentType: string }>();

  constructor(options: FakeDiscordOptions = {}) {
    this.token = options.token ?? "fake-discord-bot-token.XXXXXX.YYYYYYYYYYYYYYYYYYYYYYYYYYY";
    const flags = options.messageContentIntent === false ? 0 : AppFlag.GatewayMessageContentLimited;
    this.world = new FakeWorld(options.botName ?? "Baton", flags);
    this.http = new FakeHttp(() => this.token);
    this.gateway = new FakeGateway(
      this.world,
      () => this.token,
      () => this.gatewayUrl,
      options.heartbeatIntervalMs,
    );
    this.interactions = new FakeInteractions(this.world, this.gateway);
    this.guild = this.world.addGuild("Fake Guild");
    this.general = this.world.addChannel({ type: ChannelType.GuildText, name: "general", guildId: this.guild.id });
    for (const route of MESSAGE_ROUTES) this.http.setLimit(route, options.messageRateLimit ?? { limit: 5, windowMs: 5000 });
    registerRest(this.http, this.world, this.gateway, () => this.gatewayUrl, this.rest);
    this.interactions.register(this.http);
    this.http.onRaw("/attachments/", (req, res) => this.serveAttachment(req, res));
  }

  /** What discord.js takes as `rest.api` (and Baton as `api_url`). */
  get apiUrl(): string {
    return `${this.http.baseUrl}/api`;
  }

  get gatewayUrl(): string {
    return `ws://127.0.0.1:${this.http.port}/gateway`;
  }

  get bot(): FakeUser {
    return this.world.bot;
  }

  get calls() {
    return this.http.calls;
  }

  async start(): Promise<this> {
    await this.http.listen((req, socket, head) => {
      if ((req.url ?? "").startsWith("/gateway")) this.gateway.handleUpgrade(req, socket, head);
      else socket.destroy();
    });
    return this;
  }

  async stop(): Promise<void> {
    await this.gateway.close();
    await this.http.close();
  }

  // ── the world ───────────────────────────────────────────────────────────────────────────

  addUser(username: string): FakeUser {
    return this.world.addUser(username);
  }

  addTextChannel(name: string): FakeChannel {
    return this.world.addChannel({ type: ChannelType.GuildText, name, guildId: this.guild.id });
  }

  /** Gives a person exactly these roles in the fake's server (new role ids come from `newRoleId`). */
  setRoles(user: FakeUser, roleIds: string[]): void {
    this.world.memberRoles.set(`${this.guild.id}/${user.id}`, [...roleIds]);
  }

  /** A fresh role id (a snowflake, as Discord's are). */
  newRoleId(): string {
    return this.world.snowflake();
  }

  /** Switches the MessageContent intent on or off in the "Developer Portal". */
  setMessageContentIntent(on: boolean): void {
    this.world.applicationFlags = on
      ? this.world.applicationFlags | AppFlag.GatewayMessageContentLimited
      : this.world.applicationFlags & ~(AppFlag.GatewayMessageContent | AppFlag.GatewayMessageContentLimited);
  }

  // ── people act ──────────────────────────────────────────────────────────────────────────

  /** A person posts in a guild channel or thread; `mention` puts `<@bot>` in front, as Discord's client does. */
  say(
    author: FakeUser,
    channel: FakeChannel,
    content: string,
    options: { mention?: boolean; replyTo?: FakeMessage; files?: Array<{ name: string; content: Buffer | string; contentType?: string }> } = {},
  ): FakeMessage {
    const text = options.mention ? `<@${this.bot.id}> ${content}` : content;
    const mentions = [...new Set([...(options.mention ? [this.bot.id] : []), ...(options.replyTo ? [options.replyTo.authorId] : [])])];
    const message = postMessage(this.world, {
      channelId: channel.id,
      guildId: channel.guildId,
      authorId: author.id,
      content: text,
      flags: 0,
      components: [],
      referenceId: options.replyTo?.id,
      mentions,
      attachments: (options.files ?? []).map((file) => this.addAttachment(channel.id, file)),
    });
    this.gateway.dispatch("MESSAGE_CREATE", messageEventFor(this.world, message));
    return message;
  }

  /** A person writes to the bot in a DM. */
  dm(author: FakeUser, content: string, options: { files?: Array<{ name: string; content: Buffer | string; contentType?: string }> } = {}): FakeMessage {
    return this.say(author, this.world.dmWith(author.id), content, options);
  }

  dmChannel(user: FakeUser): FakeChannel {
    return this.world.dmWith(user.id);
  }

  /** A person starts typing in a channel, thread or DM (Discord's client says so; no message yet). */
  typing(user: FakeUser, channel: FakeChannel): void {
    this.gateway.dispatch("TYPING_START", typingEventFor(channel, user.id, Date.now()));
  }

  /** A person runs a chat-input command; `options` are string options by name. */
  slashCommand(user: FakeUser, channel: FakeChannel, name: string, options: Record<string, string> = {}): FakeInteraction {
    const registered = [...this.rest.commands.values()].flat().find((c) => c.name === name && (c.guild_id === undefined || c.guild_id === channel.guildId));
    const data = {
      id: registered?.id ?? this.world.snowflake(),
      name,
      type: 1,
      ...(channel.guildId ? { guild_id: channel.guildId } : {}),
      options: Object.entries(options).map(([optionName, value]) => ({ name: optionName, type: 3, value })),
    };
    return this.interactions.create({ type: 2, channelId: channel.id, userId: user.id, data });
  }

  /** A person presses the button `customId` on a message. */
  press(user: FakeUser, message: FakeMessage, customId: string): FakeInteraction {
    const button = message.components.flatMap((row: any) => row.components ?? []).find((c: any) => c.custom_id === customId);
    if (!button) throw new Error(`fake Discord: no button ${customId} on message ${message.id}`);
    return this.interactions.create({ type: 3, channelId: message.channelId, userId: user.id, messageId: message.id, data: { custom_id: customId, component_type: 2 } });
  }

  // ── failures ────────────────────────────────────────────────────────────────────────────

  /** The next call to `METHOD /route/:template` gets a 429 with `retry_after` seconds. */
  rateLimitNext(routeKey: string, seconds: number, options: { global?: boolean; scope?: "user" | "shared" } = {}): void {
    this.http.inject(routeKey, { kind: "ratelimit", seconds, global: options.global ?? false, scope: options.scope ?? "user" });
  }

  /** The next call to `METHOD /route/:template` is answered with this error (`errors`: Discord's field errors). */
  failNext(routeKey: string, status: number, code: number, message: string, errors?: Record<string, unknown>): void {
    this.http.inject(routeKey, { kind: "error", status, code, message, errors });
  }

  // ── what Discord saw ────────────────────────────────────────────────────────────────────

  callsTo(routeKey: string) {
    const [method, route] = routeKey.split(" ");
    return this.calls.filter((c) => c.method === method && c.route === route);
  }

  /** Messages the bot posted that everyone sees in a channel or thread, in order. */
  botMessages(channelId: string): FakeMessage[] {
    return this.world.messages.filter((m) => m.authorId === this.bot.id && m.channelId === channelId && !m.deleted && m.visibleTo === undefined);
  }

  /** Ephemeral messages only `userId` saw. */
  ephemeralsFor(userId: string): FakeMessage[] {
    return this.world.messages.filter((m) => m.visibleTo === userId);
  }

  threadOf(message: FakeMessage): FakeChannel | undefined {
    return message.threadId ? this.world.channels.get(message.threadId) : undefined;
  }

  typingIn(channelId: string): number[] {
    return this.rest.typing.filter((t) => t.channelId === channelId).map((t) => t.at);
  }

  private addAttachment(channelId: string, file: { name: string; content: Buffer | string; contentType?: string }): FakeAttachment {
    const id = this.world.snowflake();
    const bytes = Buffer.from(file.content);
    const contentType = file.contentType ?? "application/octet-stream";
    this.files.set(`${channelId}/${id}/${file.name}`, { bytes, contentType });
    const expires = Math.floor(Date.now() / 1000 + 86_400).toString(16);
    const url = `${this.http.baseUrl}/attachments/${channelId}/${id}/${encodeURIComponent(file.name)}?ex=${expires}&is=${expires}&hm=${id}`;
    return { id, filename: file.name, content_type: contentType, size: bytes.length, url };
  }

  private serveAttachment(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", this.http.baseUrl);
    const key = decodeURIComponent(url.pathname.slice("/attachments/".length));
    this.downloads.push(key);
    const file = this.files.get(key);
    if (!file || !url.searchParams.get("hm")) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": file.contentType, "content-length": String(file.bytes.length) }).end(file.bytes);
  }
}

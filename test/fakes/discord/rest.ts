// REST routes of the Discord fake that a bot calls with its token: gateway discovery, who am I
// (users/@me, its guilds, applications/@me with the intent flags), channels, messages (create,
// edit, delete, get; each also dispatched to the gateway as Discord does), a guild member (its roles), threads from a message,
// typing, DMs and application commands (global and per guild, bulk overwrite).
import { guildEventFor, messageEventFor } from "./events.js";
import type { FakeGateway } from "./gateway.js";
import type { FakeHttp } from "./http.js";
import { ChannelType, type FakeMessage, type FakeWorld } from "./model.js";
import { apiError, formError, validateCommands, validateMessageBody } from "./validate.js";

/** Discord's upload limit for a bot without boosts. */
const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

export interface RestState {
  /** Bytes of the files the bot uploaded, by attachment id. */
  uploads: Map<string, Buffer>;
  /** Application commands by scope: "global" or a guild id. */
  commands: Map<string, any[]>;
  typing: Array<{ channelId: string; at: number }>;
  identifyBudget: number;
}

export function registerRest(http: FakeHttp, world: FakeWorld, gateway: FakeGateway, gatewayUrl: () => string, state: RestState): void {
  const unknownChannel = apiError(404, 10003, "Unknown Channel");
  const unknownMessage = apiError(404, 10008, "Unknown Message");

  http.on("GET", "/gateway/bot", () => ({
    status: 200,
    body: { url: gatewayUrl(), shards: 1, session_start_limit: { total: 1000, remaining: state.identifyBudget, reset_after: 86_400_000, max_concurrency: 1 } },
  }));
  http.on("GET", "/gateway", () => ({ status: 200, body: { url: gatewayUrl() } }), { auth: false });
  http.on("GET", "/users/@me", () => ({ status: 200, body: { ...world.apiUser(world.bot), verified: true, mfa_enabled: false, flags: 0, locale: "en-US" } }));
  http.on("GET", "/users/@me/guilds", () => ({
    status: 200,
    body: [...world.guilds.values()].map((guild) => ({ id: guild.id, name: guild.name, icon: null, owner: false, permissions: "2248473465835073", features: [] })),
  }));
  http.on("GET", "/applications/@me", () => ({
    status: 200,
    body: {
      id: world.applicationId,
      name: world.bot.username,
      icon: null,
      description: "",
      bot_public: true,
      bot_require_code_grant: false,
      verify_key: "0".repeat(64),
      flags: world.applicationFlags,
      bot: world.apiUser(world.bot),
      owner: world.apiUser(world.user([...world.guilds.values()][0]?.ownerId ?? world.bot.id)),
      team: null,
      approximate_guild_count: world.guilds.size,
    },
  }));

  http.on("GET", "/channels/:channel", ({ params }) => {
    const channel = world.channels.get(params.channel);
    return channel ? { status: 200, body: world.apiChannel(channel) } : unknownChannel;
  });
  http.on("GET", "/guilds/:guild/members/:user", ({ params }) => {
    const user = world.users.get(params.user);
    if (!world.guilds.has(params.guild)) return apiError(404, 10004, "Unknown Guild");
    if (!user) return apiError(404, 10007, "Unknown Member");
    return { status: 200, body: world.apiMember(user, params.guild) };
  });
  http.on("POST", "/users/@me/channels", ({ body }) => {
    if (!world.users.has(String(body?.recipient_id))) return formError("recipient_id", "NUMBER_TYPE_COERCE", "Value is not snowflake.");
    return { status: 200, body: world.apiChannel(world.dmWith(String(body.recipient_id))) };
  });
  http.on("POST", "/channels/:channel/typing", ({ params }) => {
    if (!world.channels.has(params.channel)) return unknownChannel;
    state.typing.push({ channelId: params.channel, at: Date.now() });
    return { status: 204 };
  });

  http.on("GET", "/channels/:channel/messages/:message", ({ params }) => {
    const message = world.message(params.message);
    return message && message.channelId === params.channel && !message.visibleTo ? { status: 200, body: world.apiMessage(message) } : unknownMessage;
  });
  http.on("POST", "/channels/:channel/messages", ({ params, body, files = [] }) => {
    const channel = world.channels.get(params.channel);
    if (!channel) return unknownChannel;
    if (files.some((f) => f.data.length > MAX_UPLOAD_BYTES)) return apiError(413, 40005, "Request entity too large");
    const invalid = validateMessageBody(body, { create: true, attachments: files.length });
    if (invalid) return invalid;
    const referenceId = body.message_reference?.message_id;
    if (referenceId !== undefined && world.message(String(referenceId))?.channelId !== channel.id) {
      return formError("message_reference", "MESSAGE_REFERENCE_UNKNOWN_MESSAGE", "Unknown message");
    }
    const attachments = files.map((file) => {
      const id = world.snowflake();
      state.uploads.set(id, file.data);
      return {
        id,
        filename: file.filename,
        content_type: file.mimeType,
        size: file.data.length,
        url: `https://cdn.discordapp.com/attachments/${channel.id}/${id}/${encodeURIComponent(file.filename)}`,
      };
    });
    const message = postMessage(world, {
      channelId: channel.id,
      guildId: channel.guildId,
      authorId: world.bot.id,
      content: body.content ?? "",
      flags: body.flags ?? 0,
      components: body.components ?? [],
      referenceId,
      attachments,
    });
    gateway.dispatch("MESSAGE_CREATE", messageEventFor(world, message));
    return { status: 200, body: world.apiMessage(message) };
  });
  http.on("PATCH", "/channels/:channel/messages/:message", ({ params, body }) => {
    const message = world.message(params.message);
    if (!message || message.channelId !== params.channel || message.visibleTo) return unknownMessage;
    if (message.authorId !== world.bot.id) return apiError(403, 50005, "Cannot edit a message authored by another user");
    const invalid = validateMessageBody(body, { create: false });
    if (invalid) return invalid;
    editMessage(message, body);
    gateway.dispatch("MESSAGE_UPDATE", messageEventFor(world, message));
    return { status: 200, body: world.apiMessage(message) };
  });
  http.on("DELETE", "/channels/:channel/messages/:message", ({ params }) => {
    const message = world.message(params.message);
    if (!message || message.channelId !== params.channel || message.visibleTo) return unknownMessage;
    message.deleted = true;
    gateway.dispatch("MESSAGE_DELETE", (session) =>
      messageEventFor(world, { ...message, deleted: false })(session) ? { id: message.id, channel_id: message.channelId, guild_id: message.guildId } : undefined,
    );
    return { status: 204 };
  });

  http.on("POST", "/channels/:channel/messages/:message/threads", ({ params, body }) => {
    const channel = world.channels.get(params.channel);
    if (!channel) return unknownChannel;
    if (channel.type !== ChannelType.GuildText) return apiError(400, 50024, "Cannot execute action on this channel type");
    const message = world.message(params.message);
    if (!message || message.channelId !== channel.id) return unknownMessage;
    if (message.threadId) return apiError(400, 160004, "A thread has already been created for this message");
    const name = body?.name;
    if (typeof name !== "string" || name.length < 1 || name.length > 100) return formError("name", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.");
    if (body.auto_archive_duration !== undefined && ![60, 1440, 4320, 10080].includes(body.auto_archive_duration)) {
      return formError("auto_archive_duration", "BASE_TYPE_CHOICES", "Value must be one of {60, 1440, 4320, 10080}.");
    }
    // A thread started from a message takes the message's id.
    const thread = { id: message.id, type: ChannelType.PublicThread, name, guildId: channel.guildId, parentId: channel.id, ownerId: world.bot.id };
    world.channels.set(thread.id, thread);
    message.threadId = thread.id;
    gateway.dispatch(
      "THREAD_CREATE",
      guildEventFor({ ...world.apiChannel(thread), newly_created: true, member: { id: thread.id, user_id: world.bot.id, join_timestamp: new Date().toISOString(), flags: 0 } }),
    );
    return { status: 201, body: world.apiChannel(thread) };
  });

  const putCommands = (scope: string, body: unknown) => {
    const invalid = validateCommands(body);
    if (invalid) return invalid;
    const stored = (body as any[]).map((command) => ({
      id: world.snowflake(),
      application_id: world.applicationId,
      version: world.snowflake(),
      type: 1,
      ...(scope === "global" ? {} : { guild_id: scope }),
      ...command,
    }));
    state.commands.set(scope, stored);
    return { status: 200, body: stored };
  };
  const checkApp = (app: string) => (app === world.applicationId ? undefined : apiError(403, 20012, "You are not authorized to perform this action on this application"));
  http.on("PUT", "/applications/:app/commands", ({ params, body }) => checkApp(params.app) ?? putCommands("global", body));
  http.on("GET", "/applications/:app/commands", ({ params }) => checkApp(params.app) ?? { status: 200, body: state.commands.get("global") ?? [] });
  http.on("PUT", "/applications/:app/guilds/:guild/commands", ({ params, body }) => {
    if (!world.guilds.has(params.guild)) return apiError(403, 50001, "Missing Access");
    return checkApp(params.app) ?? putCommands(params.guild, body);
  });
  http.on("GET", "/applications/:app/guilds/:guild/commands", ({ params }) => checkApp(params.app) ?? { status: 200, body: state.commands.get(params.guild) ?? [] });
}

export function postMessage(
  world: FakeWorld,
  fields: Omit<FakeMessage, "id" | "createdAt" | "history" | "attachments" | "mentions"> & Partial<Pick<FakeMessage, "attachments" | "mentions">>,
): FakeMessage {
  const message: FakeMessage = { id: world.snowflake(), createdAt: new Date().toISOString(), attachments: [], mentions: [], ...fields, history: [fields.content] };
  world.messages.push(message);
  return message;
}

export function editMessage(message: FakeMessage, body: { content?: string | null; components?: any[]; flags?: number }): void {
  if (body.content !== undefined) message.content = body.content ?? "";
  if (body.components !== undefined) message.components = body.components;
  if (body.flags !== undefined) message.flags = body.flags;
  message.editedAt = new Date().toISOString();
  message.history.push(message.content);
}

// Interactions in the Discord fake: slash commands and button presses delivered as
// INTERACTION_CREATE, their callback (`POST /interactions/{id}/{token}/callback`, no bot token) and
// the webhook routes that follow it (GET / PATCH / DELETE `/webhooks/{app}/{token}/messages/@original`,
// follow-ups with `POST /webhooks/{app}/{token}`).
//
// Covers response types 4 (message), 5 (deferred "thinking…", LOADING flag until the original is
// edited), 6 (deferred update) and 7 (update the pressed message), EPHEMERAL (flag 64) replies seen
// only by the presser, Discord's 3-second window (after it: 404 10062 Unknown interaction), a second
// acknowledgement (400 40060, what a second process on the same token gets) and the 15-minute token.
// Not covered: modals, autocomplete, PING, attachments in responses.
import { messageEventFor } from "./events.js";
import type { FakeGateway } from "./gateway.js";
import type { FakeHttp } from "./http.js";
import { ChannelType, MessageFlag, type FakeMessage, type FakeWorld } from "./model.js";
import { editMessage, postMessage } from "./rest.js";
import { apiError, validateMessageBody, type ApiError } from "./validate.js";

const INTERACTION_WINDOW_MS = 3000;
const TOKEN_LIFETIME_MS = 15 * 60_000;

export interface FakeInteraction {
  id: string;
  token: string;
  type: 2 | 3;
  channelId: string;
  guildId?: string;
  userId: string;
  createdAt: number;
  data: Record<string, unknown>;
  /** Button press: the message the button is on. */
  messageId?: string;
  /** The response type the bot acknowledged with, once it has. */
  acknowledgedWith?: number;
  acknowledgedAt?: number;
  original?: FakeMessage;
  followUps: FakeMessage[];
}

export class FakeInteractions {
  readonly all: FakeInteraction[] = [];

  constructor(
    private readonly world: FakeWorld,
    private readonly gateway: FakeGateway,
  ) {}

  /** Creates an interaction and sends INTERACTION_CREATE to every session. */
  create(fields: Pick<FakeInteraction, "type" | "channelId" | "userId" | "data" | "messageId">): FakeInteraction {
    const channel = this.world.channels.get(fields.channelId);
    if (!channel) throw new Error(`fake Discord: no channel ${fields.channelId}`);
    const interaction: FakeInteraction = { id: this.world.snowflake(), token: `itoken-${this.world.snowflake()}`, createdAt: Date.now(), guildId: channel.guildId, followUps: [], ...fields };
    this.all.push(interaction);
    const user = this.world.user(interaction.userId);
    const message = interaction.messageId ? this.world.message(interaction.messageId) : undefined;
    const payload = {
      id: interaction.id,
      application_id: this.world.applicationId,
      type: interaction.type,
      token: interaction.token,
      version: 1,
      data: interaction.data,
      channel_id: channel.id,
      channel: this.world.apiChannel(channel),
      ...(channel.guildId
        ? { guild_id: channel.guildId, guild: { id: channel.guildId, locale: "en-US", features: [] }, guild_locale: "en-US", member: this.world.apiMember(user, channel.guildId) }
        : { user: this.world.apiUser(user) }),
      ...(message ? { message: this.world.apiMessage(message) } : {}),
      app_permissions: "2248473465835073",
      locale: "en-US",
      entitlements: [],
      authorizing_integration_owners: { "0": channel.guildId ?? user.id },
      context: channel.type === ChannelType.DM ? 1 : 0,
      attachment_size_limit: 10 * 1024 * 1024,
    };
    this.gateway.dispatch("INTERACTION_CREATE", () => payload);
    return interaction;
  }

  register(http: FakeHttp): void {
    http.on(
      "POST",
      "/interactions/:id/:token/callback",
      ({ params, query, body }) => {
        const interaction = this.all.find((i) => i.id === params.id);
        if (!interaction || interaction.token !== params.token) return apiError(404, 10062, "Unknown interaction");
        if (interaction.acknowledgedWith !== undefined) return apiError(400, 40060, "Interaction has already been acknowledged.");
        if (Date.now() - interaction.createdAt > INTERACTION_WINDOW_MS) return apiError(404, 10062, "Unknown interaction");
        const { error, message } = this.acknowledge(interaction, body);
        if (error) return error;
        if (query.with_response !== "true") return { status: 204 };
        return {
          status: 200,
          body: {
            interaction: {
              id: interaction.id,
              type: interaction.type,
              response_message_id: message?.id,
              response_message_loading: body.type === 5,
              response_message_ephemeral: ((message?.flags ?? 0) & MessageFlag.Ephemeral) !== 0,
            },
            resource: { type: body.type, ...(message ? { message: this.world.apiMessage(message) } : {}) },
          },
        };
      },
      { auth: false },
    );

    const findByToken = (app: string, token: string) => {
      if (app !== this.world.applicationId) return undefined;
      const interaction = this.all.find((i) => i.token === token);
      return interaction && Date.now() - interaction.createdAt <= TOKEN_LIFETIME_MS ? interaction : undefined;
    };
    const unknownWebhook = apiError(404, 10015, "Unknown Webhook");
    http.on(
      "GET",
      "/webhooks/:app/:token/messages/@original",
      ({ params }) => {
        const interaction = findByToken(params.app, params.token);
        if (!interaction) return unknownWebhook;
        return interaction.original ? { status: 200, body: this.world.apiMessage(interaction.original) } : apiError(404, 10008, "Unknown Message");
      },
      { auth: false },
    );
    http.on(
      "PATCH",
      "/webhooks/:app/:token/messages/@original",
      ({ params, body }) => {
        const interaction = findByToken(params.app, params.token);
        if (!interaction) return unknownWebhook;
        const original = interaction.original;
        if (!original || original.deleted) return apiError(404, 10008, "Unknown Message");
        const invalid = validateMessageBody(body, { create: false, interaction: true });
        if (invalid) return invalid;
        editMessage(original, { ...body, flags: original.flags & ~MessageFlag.Loading });
        this.gateway.dispatch("MESSAGE_UPDATE", messageEventFor(this.world, original));
        return { status: 200, body: this.world.apiMessage(original) };
      },
      { auth: false },
    );
    http.on(
      "DELETE",
      "/webhooks/:app/:token/messages/@original",
      ({ params }) => {
        const interaction = findByToken(params.app, params.token);
        if (!interaction) return unknownWebhook;
        if (!interaction.original || interaction.original.deleted) return apiError(404, 10008, "Unknown Message");
        interaction.original.deleted = true;
        return { status: 204 };
      },
      { auth: false },
    );
    http.on(
      "POST",
      "/webhooks/:app/:token",
      ({ params, body }) => {
        const interaction = findByToken(params.app, params.token);
        if (!interaction) return unknownWebhook;
        if (interaction.acknowledgedWith === undefined) return apiError(404, 10015, "Unknown Webhook");
        const invalid = validateMessageBody(body, { create: true, interaction: true });
        if (invalid) return invalid;
        const message = this.respond(interaction, body);
        interaction.followUps.push(message);
        return { status: 200, body: this.world.apiMessage(message) };
      },
      { auth: false },
    );
  }

  private acknowledge(interaction: FakeInteraction, body: any): { error?: ApiError; message?: FakeMessage } {
    const type = body?.type;
    const data = body?.data ?? {};
    switch (type) {
      case 4:
      case 5: {
        const invalid = type === 4 ? validateMessageBody(data, { create: true, interaction: true }) : validateMessageBody({ flags: data.flags }, { create: false, interaction: true });
        if (invalid) return { error: invalid };
        interaction.acknowledgedWith = type;
        interaction.acknowledgedAt = Date.now();
        interaction.original = this.respond(interaction, type === 4 ? data : { content: "", flags: (data.flags ?? 0) | MessageFlag.Loading });
        return { message: interaction.original };
      }
      case 6:
      case 7: {
        if (interaction.type !== 3) return { error: apiError(400, 40043, "This interaction type cannot use this response type") };
        const pressed = this.world.message(interaction.messageId!);
        if (type === 7) {
          const invalid = validateMessageBody(data, { create: false, interaction: true });
          if (invalid) return { error: invalid };
          if (pressed) {
            editMessage(pressed, data);
            this.gateway.dispatch("MESSAGE_UPDATE", messageEventFor(this.world, pressed));
          }
        }
        interaction.acknowledgedWith = type;
        interaction.acknowledgedAt = Date.now();
        return { message: pressed };
      }
      default:
        return { error: apiError(400, 50035, `Invalid Form Body (interaction response type ${String(type)} not covered by the fake)`) };
    }
  }

  private respond(interaction: FakeInteraction, data: any): FakeMessage {
    const ephemeral = ((data.flags ?? 0) & MessageFlag.Ephemeral) !== 0;
    const message = postMessage(this.world, {
      channelId: interaction.channelId,
      guildId: interaction.guildId,
      authorId: this.world.bot.id,
      content: data.content ?? "",
      flags: data.flags ?? 0,
      components: data.components ?? [],
      interactionId: interaction.id,
      ...(ephemeral ? { visibleTo: interaction.userId } : {}),
    });
    if (!ephemeral) this.gateway.dispatch("MESSAGE_CREATE", messageEventFor(this.world, message));
    return message;
  }
}

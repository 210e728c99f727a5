import { z } from "zod";
import { commonPlatformFields, refuseUrlCredentials } from "../kit/config.js";
import { parseDiscordRoute, SNOWFLAKE_PATTERN } from "./routes.js";

/** Discord's own REST base; discord.js appends the API version (`/v10`). */
export const DISCORD_API_URL = "https://discord.com/api";

const snowflake = z.string().regex(SNOWFLAKE_PATTERN, "a Discord id: 17–20 digits (Developer Mode → right-click → Copy ID)");

// Kept apart from the adapter so the config loader can validate without loading discord.js.
export const discordConfigSchema = z
  .object({
    kind: z.literal("discord").optional(),
    ...commonPlatformFields,
    token: z.string().min(1).describe("Bot token from the Developer Portal (Bot → Reset Token), e.g. ${DISCORD_BOT_TOKEN}"),
    application_id: snowflake.optional().describe("The application's id (General Information → Application ID); default: asked from Discord at start"),
    guilds: z.array(snowflake).default([]).describe("Server ids to register slash commands in (they appear at once); empty = global commands (Discord may take up to an hour to show them)"),
    threads: z
      .enum(["auto", "off"])
      .default("auto")
      .describe("auto: a mention in a text channel starts a Discord thread from that message and the conversation continues there; off: answer in the channel"),
    listen_all_in: z
      .array(z.string().refine((route) => parseDiscordRoute(route) !== undefined, { message: "not a Discord route: use discord:<channel or thread id>" }))
      .default([])
      .describe("Routes where every message counts as addressed: a channel (its threads too) or one thread"),
    api_url: z.url().optional().describe(`REST base as discord.js takes it (default ${DISCORD_API_URL}), for a proxy; the gateway URL comes from GET /gateway/bot`),
  })
  .strict()
  .superRefine(refuseUrlCredentials("api_url", "token"));

export type DiscordAdapterConfig = z.infer<typeof discordConfigSchema>;

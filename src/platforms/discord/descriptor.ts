// Discord as Baton sees it before it is enabled: no discord.js is loaded here.
import { commonSettings } from "../kit/config.js";
import type { PlatformDescriptor } from "../kit/descriptor.js";
import { discordConfigSchema, type DiscordAdapterConfig } from "./config.js";

export const discordPlatform: PlatformDescriptor<DiscordAdapterConfig> = {
  kind: "discord",
  schema: discordConfigSchema,
  load: async () => (await import("./index.js")).createDiscordAdapter,
  doctor: async () => (await import("./doctor.js")).checkDiscordCredentials,
  secrets: (config) => [config.token],
  common: (config) => commonSettings(config),
};

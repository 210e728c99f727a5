// Telegram as Baton sees it before it is enabled: no grammY is loaded here.
import { commonSettings } from "../kit/config.js";
import type { PlatformDescriptor } from "../kit/descriptor.js";
import { telegramConfigSchema, type TelegramAdapterConfig } from "./config.js";

export const telegramPlatform: PlatformDescriptor<TelegramAdapterConfig> = {
  kind: "telegram",
  schema: telegramConfigSchema,
  load: async () => (await import("./index.js")).createTelegramAdapter,
  doctor: async () => (await import("./doctor.js")).checkTelegramCredentials,
  secrets: (config) => [config.token, config.webhook?.secret_token],
  common: (config) => commonSettings(config),
};

// Slack as Baton sees it before it is enabled: no Bolt is loaded here.
import { commonSettings } from "../kit/config.js";
import type { PlatformDescriptor } from "../kit/descriptor.js";
import { slackConfigSchema, type SlackAdapterConfig } from "./config.js";

export const slackPlatform: PlatformDescriptor<SlackAdapterConfig> = {
  kind: "slack",
  schema: slackConfigSchema,
  load: async () => (await import("./index.js")).createSlackAdapter,
  doctor: async () => (await import("./doctor.js")).checkSlackCredentials,
  secrets: (config) => [config.bot_token, config.app_token, config.signing_secret],
  common: (config) => commonSettings(config),
};

// The web chat as Baton sees it before it is enabled.
import { commonSettings } from "../kit/config.js";
import type { PlatformDescriptor } from "../kit/descriptor.js";
import { webConfigSchema, type WebAdapterConfig } from "./config.js";

export const webPlatform: PlatformDescriptor<WebAdapterConfig> = {
  kind: "web",
  schema: webConfigSchema,
  load: async () => (await import("./index.js")).createWebAdapter,
  secrets: (config) => [config.token],
  common: (config) => commonSettings(config),
};

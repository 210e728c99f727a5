// Discord platform: loaded only when a discord instance is enabled (see ../registry.ts), so
// discord.js is imported only then.
import type { PlatformEnv } from "../contract.js";
import { DiscordAdapter } from "./adapter.js";
import type { DiscordAdapterConfig } from "./config.js";

export { DiscordAdapter, DISCORD_MAX_MESSAGE_CHARS, TYPING_INTERVAL_MS } from "./adapter.js";
export type { DiscordAdapterConfig } from "./config.js";
export { discordConfigSchema } from "./config.js";
export { formatDiscordRoute, parseDiscordRoute } from "./routes.js";
export { markdownToDiscord } from "./markdown.js";
export { checkDiscordCredentials } from "./doctor.js";

export function createDiscordAdapter(name: string, config: DiscordAdapterConfig, env: PlatformEnv): DiscordAdapter {
  return new DiscordAdapter(name, config, env);
}

// Telegram platform: loaded only when a telegram instance is enabled (see ../registry.ts).
import type { PlatformEnv } from "../contract.js";
import { TelegramAdapter } from "./adapter.js";
import type { TelegramAdapterConfig } from "./config.js";

export { TelegramAdapter, TYPING_INTERVAL_MS, TELEGRAM_MAX_MARKDOWN_CHARS, type TelegramTuning } from "./adapter.js";
export type { TelegramAdapterConfig } from "./config.js";
export { telegramConfigSchema } from "./config.js";
export { formatTelegramRoute, parseTelegramRoute } from "./routes.js";
export { markdownToTelegramHtml } from "./markdown.js";
export { checkTelegramCredentials } from "./doctor.js";

export function createTelegramAdapter(name: string, config: TelegramAdapterConfig, env: PlatformEnv): TelegramAdapter {
  return new TelegramAdapter(name, config, env);
}

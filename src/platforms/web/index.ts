// Web chat platform: loaded only when the web instance is enabled (see ../registry.ts).
import type { PlatformEnv } from "../contract.js";
import { WebAdapter } from "./adapter.js";
import type { WebAdapterConfig } from "./config.js";

export { WebAdapter, WEB_MAX_MESSAGE_CHARS, WEB_MIN_EDIT_GAP_MS, WEB_TYPING_INTERVAL_MS } from "./adapter.js";
export type { WebAdapterConfig } from "./config.js";
export { webConfigSchema } from "./config.js";
export { markdownToHtml, renderMessageHtml } from "./render.js";
export { TOKEN_FILE_NAME } from "./auth.js";

export function createWebAdapter(name: string, config: WebAdapterConfig, env: PlatformEnv): WebAdapter {
  return new WebAdapter(name, config, env);
}

// Slack platform: loaded lazily by the registry only when a Slack instance is enabled.
import type { PlatformEnv } from "../contract.js";
import { SlackAdapter } from "./adapter.js";
import type { SlackAdapterTestOptions } from "./adapter.js";
import type { SlackAdapterConfig } from "./config.js";

export { SlackAdapter } from "./adapter.js";
export type { SlackAdapterTestOptions } from "./adapter.js";
export type { SlackAdapterConfig } from "./config.js";
export { slackConfigSchema } from "./config.js";
export { parseSlackRoute, formatSlackRoute } from "./routes.js";
export { markdownToMrkdwn } from "./mrkdwn.js";

export function createSlackAdapter(name: string, config: SlackAdapterConfig, env: PlatformEnv, testOptions?: SlackAdapterTestOptions): SlackAdapter {
  return new SlackAdapter(name, config, env, testOptions);
}
// `baton doctor` may import "./doctor.js" directly: it needs no Bolt.
export { checkSlackCredentials } from "./doctor.js";
export { REQUIRED_BOT_SCOPES } from "./scopes.js";

// Discord route keys: `<instance>:<channel id>` names a text channel, a DM or a thread (a Discord
// thread is a channel with its own id, so one id is enough). The instance name (usually `discord`)
// prefixes every route so two bots never collide. Ids are snowflakes: 17–20 digits.

export interface DiscordRoute {
  /** Adapter instance name, e.g. `discord` or `discord_work`. */
  instance: string;
  channelId: string;
}

const SNOWFLAKE = "\\d{17,20}";
export const SNOWFLAKE_PATTERN = new RegExp(`^${SNOWFLAKE}$`);
const ROUTE_PATTERN = new RegExp(`^([A-Za-z0-9_-]+):(${SNOWFLAKE})$`);

export function formatDiscordRoute(route: DiscordRoute): string {
  return `${route.instance}:${route.channelId}`;
}

/** Parses a route key; undefined when it is not a Discord route. */
export function parseDiscordRoute(key: string): DiscordRoute | undefined {
  const match = ROUTE_PATTERN.exec(key);
  return match ? { instance: match[1], channelId: match[2] } : undefined;
}

/** Discord user ids are qualified by the platform kind, as every PlatformUser id is. */
export function qualifiedUserId(discordUserId: string): string {
  return `discord:${discordUserId}`;
}

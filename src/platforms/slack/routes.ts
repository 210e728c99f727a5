// Slack route keys. A route names one place where messages arrive and go:
//   <instance>:<team>/<channel>              a channel or DM as a whole
//   <instance>:<team>/<channel>:<thread_ts>  one Slack thread in it
// The instance name (usually `slack`) prefixes every route so two workspaces never collide.

export interface SlackRoute {
  /** Adapter instance name, e.g. `slack` or `slack_acme`. */
  instance: string;
  team: string;
  channel: string;
  /** Parent message ts of the Slack thread, absent for a whole channel / DM. */
  threadTs?: string;
}

// Slack ids are upper-case alphanumerics (T…, E…, C…, G…, D…); a ts is "seconds.micros".
const ID = "[A-Z0-9]+";
const TS = "\\d+\\.\\d+";
const ROUTE_PATTERN = new RegExp(`^([A-Za-z0-9_-]+):(${ID})/(${ID})(?::(${TS}))?$`);

export function formatSlackRoute(route: SlackRoute): string {
  const base = `${route.instance}:${route.team}/${route.channel}`;
  return route.threadTs ? `${base}:${route.threadTs}` : base;
}

/** Parses a route key; returns undefined when it is not a Slack route (or has another shape). */
export function parseSlackRoute(key: string): SlackRoute | undefined {
  const match = ROUTE_PATTERN.exec(key);
  if (!match) return undefined;
  const [, instance, team, channel, threadTs] = match;
  return threadTs ? { instance, team, channel, threadTs } : { instance, team, channel };
}

/** The channel-level route of a (possibly threaded) route. */
export function channelRouteOf(route: SlackRoute): string {
  return formatSlackRoute({ instance: route.instance, team: route.team, channel: route.channel });
}

/** Slack user ids are qualified by the platform kind, as every PlatformUser id is. */
export function qualifiedUserId(slackUserId: string): string {
  return `slack:${slackUserId}`;
}

export function slackUserIdOf(qualified: string): string {
  return qualified.startsWith("slack:") ? qualified.slice("slack:".length) : qualified;
}

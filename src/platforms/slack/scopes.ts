// What the Slack app must be granted. Kept equal to docs/slack-manifest.yaml (a test checks it), so
// `baton doctor` can name the scopes an installed app is missing.

/** Bot token scopes Baton uses, each for a reason given in the manifest. */
export const REQUIRED_BOT_SCOPES = [
  "app_mentions:read",
  "channels:history",
  "groups:history",
  "im:history",
  "mpim:history",
  "chat:write",
  "commands",
  "reactions:write",
  "files:read",
  "files:write",
] as const;

/** A scope that unlocks an extra when granted: the assistant thread status. */
export const ASSISTANT_STATUS_SCOPE = "assistant:write";

/** A scope needed only when an access list names a Slack user group (`slack:group:S…`). */
export const USER_GROUPS_SCOPE = "usergroups:read";

/** Events the adapter listens to. */
export const REQUIRED_BOT_EVENTS = ["app_mention", "message.channels", "message.groups", "message.im", "message.mpim"] as const;

export const SLASH_COMMAND = "/baton";

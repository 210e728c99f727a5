// What Baton asks Discord for, in one place: the gateway intents, the permissions in the invite
// URL and the application flags that say the privileged MessageContent intent is on. Plain numbers
// (checked against discord.js's own constants in the tests) so `baton doctor` needs no SDK.

/** Gateway intents: Guilds, GuildMessages, DirectMessages and the privileged MessageContent. */
export const GATEWAY_INTENTS = {
  Guilds: 1 << 0,
  GuildMessages: 1 << 9,
  DirectMessages: 1 << 12,
  // Typing (not privileged): a person typing to Baton gets their thread's agent started before the message.
  GuildMessageTyping: 1 << 11,
  DirectMessageTyping: 1 << 14,
  MessageContent: 1 << 15,
} as const;

/** Invite permissions: see channels, read their history, post, start threads from a message and post in them. */
export const INVITE_PERMISSIONS = {
  ViewChannel: 1n << 10n,
  SendMessages: 1n << 11n,
  ReadMessageHistory: 1n << 16n,
  CreatePublicThreads: 1n << 35n,
  SendMessagesInThreads: 1n << 38n,
} as const;

const INVITE_SCOPES = ["bot", "applications.commands"] as const;

/** Application flags: MessageContent switched on (the _LIMITED flag is what bots in < 100 servers get). */
export const MESSAGE_CONTENT_FLAGS = (1 << 19) | (1 << 18);

export const MESSAGE_CONTENT_FIX = "switch on Developer Portal → your application → Bot → Privileged Gateway Intents → Message Content Intent, save, and start Baton again";

export function invitePermissionBits(): bigint {
  return Object.values(INVITE_PERMISSIONS).reduce((all, bit) => all | bit, 0n);
}

export function inviteUrl(applicationId: string): string {
  const query = new URLSearchParams({ client_id: applicationId, scope: INVITE_SCOPES.join(" "), permissions: invitePermissionBits().toString() });
  return `https://discord.com/oauth2/authorize?${query.toString().replace(/\+/g, "%20")}`;
}

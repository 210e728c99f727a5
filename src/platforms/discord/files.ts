// Attachments on a Discord message, as descriptors the core fetches only for allowed users.
// Discord serves them from its CDN at signed URLs that need no token.
import type { InboundFile } from "../contract.js";
import { fetchSharedFile } from "../kit/download.js";
import type { DiscordAttachmentFacts } from "./parse.js";

const DISCORD_FILE_HOSTS = ["cdn.discordapp.com", "media.discordapp.net"];

export function discordFile(attachment: DiscordAttachmentFacts, apiHost: string | undefined): InboundFile {
  return {
    name: attachment.name,
    mimeType: attachment.mimeType,
    size: attachment.size,
    fetch: (signal) => fetchSharedFile("Discord", attachment, { hostnames: DISCORD_FILE_HOSTS, apiHost }, signal),
  };
}

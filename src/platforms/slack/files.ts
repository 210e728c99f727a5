// Files shared in a conversation, as descriptors the core fetches only for allowed users. The
// bot token goes only to Slack's own hosts (or the configured API host), never to a URL some
// payload points elsewhere, and never along a redirect (kit/download.ts).
import type { InboundFile } from "../contract.js";
import { fetchSharedFile } from "../kit/download.js";

/** The fields of a Slack file object Baton reads. */
export interface SlackFileObject {
  id?: string;
  name?: string;
  title?: string;
  mimetype?: string;
  /** `slack_audio` for an audio clip recorded in Slack. */
  subtype?: string;
  size?: number;
  url_private_download?: string;
  url_private?: string;
}

export interface FileSourceOptions {
  botToken: string;
  /** Host of the configured API URL: its files are trusted like slack.com's. */
  apiHost?: string;
}

export function slackFile(file: SlackFileObject, options: FileSourceOptions): InboundFile {
  const name = file.name || file.title || file.id || "file";
  const url = file.url_private_download ?? file.url_private;
  return {
    name,
    mimeType: mimeTypeOf(file),
    size: file.size,
    fetch: (signal) => fetchSharedFile("Slack", { name, url }, { hostnames: ["slack.com"], subdomains: true, apiHost: options.apiHost }, signal, { Authorization: `Bearer ${options.botToken}` }),
  };
}

/** An audio clip recorded in Slack may be labelled as video (its container); it is a voice note all the same. */
function mimeTypeOf(file: SlackFileObject): string | undefined {
  if (file.subtype === "slack_audio" && file.mimetype && !file.mimetype.startsWith("audio/")) return file.mimetype.replace(/^[^/]+\//, "audio/");
  return file.mimetype;
}

// Files shared in a conversation, as descriptors the core fetches only for allowed users. The
// bot token goes only to Slack's own hosts (or the configured API host), never to a URL some
// payload points elsewhere, and never along a redirect.
import type { InboundFile } from "../contract.js";
import { httpPlatformError, networkPlatformError } from "../kit/errors.js";
import { PlatformError } from "../../kernel/errors.js";

/** The fields of a Slack file object Baton reads. */
export interface SlackFileObject {
  id?: string;
  name?: string;
  title?: string;
  mimetype?: string;
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
  return {
    name,
    mimeType: file.mimetype,
    size: file.size,
    fetch: async (signal) => {
      const url = file.url_private_download ?? file.url_private;
      if (!url) throw new PlatformError(`Slack gave no download address for ${name}.`, { reason: "refused" });
      if (!isTrustedHost(url, options.apiHost)) throw new PlatformError(`${name} is not hosted by Slack, so Baton does not fetch it.`, { reason: "refused" });
      let response: Response;
      try {
        response = await fetch(url, { headers: { Authorization: `Bearer ${options.botToken}` }, redirect: "error", signal });
      } catch (error) {
        throw networkPlatformError("Slack", "download a file", error instanceof Error ? error.name : "fetch failed");
      }
      if (!response.ok || !response.body) throw httpPlatformError("Slack", "download a file", { status: response.status, description: response.statusText });
      return response.body as unknown as AsyncIterable<Uint8Array>;
    },
  };
}

function isTrustedHost(url: string, apiHost: string | undefined): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (apiHost && parsed.host.toLowerCase() === apiHost.toLowerCase()) return true;
  return parsed.protocol === "https:" && (parsed.hostname === "slack.com" || parsed.hostname.endsWith(".slack.com"));
}

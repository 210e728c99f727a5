// Fetching a file a user shared, for every adapter's InboundFile: only from the platform's own
// hosts (or the configured API host, for proxies and tests), never along a redirect, and with
// failures read the one way the core understands (kit/errors.ts). Credentials, where a platform
// needs them, go in `headers` and so only to a trusted host.
import { PlatformError } from "../../kernel/errors.js";
import { httpPlatformError, networkPlatformError } from "./errors.js";

export interface TrustedHosts {
  /** Host names served over HTTPS that belong to the platform (a name also covers its subdomains when `subdomains`). */
  hostnames: string[];
  subdomains?: boolean;
  /** `host[:port]` of the configured API URL: its files are trusted whatever the scheme. */
  apiHost?: string;
}

export async function fetchSharedFile(
  platform: string,
  file: { name: string; url: string | undefined },
  trusted: TrustedHosts,
  signal: AbortSignal,
  headers?: Record<string, string>,
): Promise<AsyncIterable<Uint8Array>> {
  if (!file.url) throw new PlatformError(`${platform} gave no download address for ${file.name}.`, { reason: "refused" });
  if (!isTrustedHost(file.url, trusted)) throw new PlatformError(`${file.name} is not hosted by ${platform}, so Baton does not fetch it.`, { reason: "refused" });
  let response: Response;
  try {
    response = await fetch(file.url, { headers, redirect: "error", signal });
  } catch (error) {
    throw networkPlatformError(platform, "download a file", error instanceof Error ? error.name : "fetch failed");
  }
  if (!response.ok || !response.body) throw httpPlatformError(platform, "download a file", { status: response.status, description: response.statusText });
  return response.body as unknown as AsyncIterable<Uint8Array>;
}

function isTrustedHost(url: string, trusted: TrustedHosts): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (trusted.apiHost && parsed.host.toLowerCase() === trusted.apiHost.toLowerCase()) return true;
  if (parsed.protocol !== "https:") return false;
  const host = parsed.hostname.toLowerCase();
  return trusted.hostnames.some((name) => host === name || (trusted.subdomains === true && host.endsWith(`.${name}`)));
}

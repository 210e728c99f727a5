// Files shared in a conversation: downloaded with the bot token into the cache, size-capped, so the
// agent gets a local path. The token goes only to Slack's own hosts (or the configured API host),
// never to a URL some payload points elsewhere.
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { InboundFile, PlatformLogger } from "../contract.js";
import { safeRouteDirName } from "./routes.js";

/** A download that takes longer is abandoned. */
const DOWNLOAD_TIMEOUT_MS = 60_000;

/** The fields of a Slack file object Baton reads. */
export interface SlackFileObject {
  id?: string;
  name?: string;
  title?: string;
  mimetype?: string;
  size?: number;
  url_private_download?: string;
  url_private?: string;
  /** Files from Slack Connect partners come as stubs that must be fetched with files.info first. */
  file_access?: string;
}

export interface FileDownloaderOptions {
  botToken: string;
  cacheDir: string;
  maxFileBytes: number;
  /** Host of the configured API URL: its files are trusted like slack.com's. */
  apiHost?: string;
  log: PlatformLogger;
}

export interface DownloadOutcome {
  files: InboundFile[];
  /** Names of files that were not downloaded, with the reason, for a note to the agent. */
  skipped: string[];
}

export class FileDownloader {
  constructor(private readonly options: FileDownloaderOptions) {}

  async download(route: string, slackFiles: readonly SlackFileObject[]): Promise<DownloadOutcome> {
    const outcome: DownloadOutcome = { files: [], skipped: [] };
    for (const file of slackFiles) {
      const name = file.name || file.title || file.id || "file";
      try {
        const saved = await this.downloadOne(route, file, name);
        if (typeof saved === "string") outcome.skipped.push(`${name} (${saved})`);
        else outcome.files.push(saved);
      } catch (error) {
        this.options.log.warn({ route, file: name, err: String(error) }, "slack: file download failed");
        outcome.skipped.push(`${name} (download failed)`);
      }
    }
    return outcome;
  }

  /** Returns the saved file, or the reason it was skipped. */
  private async downloadOne(route: string, file: SlackFileObject, name: string): Promise<InboundFile | string> {
    const { maxFileBytes } = this.options;
    if (typeof file.size === "number" && file.size > maxFileBytes) return `larger than ${maxFileBytes} bytes`;
    const url = file.url_private_download ?? file.url_private;
    if (!url) return "no download URL";
    if (!this.isTrustedHost(url)) return "not hosted by Slack";

    const response = await fetch(url, {
      headers: { Authorization: `Bearer ${this.options.botToken}` },
      // A redirect could carry the token elsewhere: Slack serves files directly.
      redirect: "error",
      signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS),
    });
    if (!response.ok || !response.body) return `HTTP ${response.status}`;
    const declared = Number(response.headers.get("content-length") ?? "0");
    if (declared > maxFileBytes) {
      await response.body.cancel();
      return `larger than ${maxFileBytes} bytes`;
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > maxFileBytes) return `larger than ${maxFileBytes} bytes`;
      chunks.push(chunk);
    }
    const dir = join(this.options.cacheDir, safeRouteDirName(route));
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, `${safeFileName(file.id ?? "f")}-${safeFileName(name)}`);
    try {
      await writeFile(path, Buffer.concat(chunks), { mode: 0o600 });
    } catch (error) {
      await rm(path, { force: true });
      throw error;
    }
    return { name, path, mimeType: file.mimetype, size };
  }

  private isTrustedHost(url: string): boolean {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return false;
    }
    const host = parsed.host.toLowerCase();
    if (this.options.apiHost && host === this.options.apiHost.toLowerCase()) return true;
    return parsed.protocol === "https:" && (parsed.hostname === "slack.com" || parsed.hostname.endsWith(".slack.com"));
  }
}

function safeFileName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "_");
  return cleaned.slice(0, 120) || "file";
}

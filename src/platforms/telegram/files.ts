// Downloads the photos and documents a user sent, size-capped, into the route's cache folder, so
// the core can hand them to the agent as resource links.
import { createWriteStream } from "node:fs";
import { chmod, copyFile, mkdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Api } from "grammy";
import { PlatformError } from "../../kernel/errors.js";
import type { InboundFile } from "../contract.js";
import { toPlatformError } from "./errors.js";
import type { AttachmentRef } from "./parse.js";
import { routeSafeName } from "./routes.js";

const DOWNLOAD_TIMEOUT_MS = 60_000;

export interface DownloadContext {
  api: Api;
  apiRoot: string;
  token: string;
  cacheDir: string;
  maxFileBytes: number;
}

export type DownloadResult = { ok: true; file: InboundFile } | { ok: false; note: string };

/** Downloads one attachment; a file over the cap or a failed download becomes a note for the agent instead. */
export async function downloadAttachment(attachment: AttachmentRef, route: string, context: DownloadContext): Promise<DownloadResult> {
  if (attachment.size !== undefined && attachment.size > context.maxFileBytes) {
    return { ok: false, note: tooLargeNote(attachment.name, attachment.size, context.maxFileBytes) };
  }
  const directory = path.join(context.cacheDir, routeSafeName(route));
  // Unique per file (two attachments may share a name), and still readable for the agent.
  const target = path.join(directory, `${Date.now()}-${safeFileName(attachment.fileUniqueId)}-${safeFileName(attachment.name)}`);
  try {
    const remote = await context.api.getFile(attachment.fileId);
    if (!remote.file_path) throw new PlatformError("Telegram did not give a download path for the file.", { reason: "refused" });
    await mkdir(directory, { recursive: true, mode: 0o700 });
    const size = path.isAbsolute(remote.file_path)
      ? await copyLocalFile(remote.file_path, target, context.maxFileBytes)
      : await fetchCapped(`${context.apiRoot}/file/bot${context.token}/${remote.file_path}`, target, context.maxFileBytes);
    return { ok: true, file: { name: attachment.name, path: target, mimeType: attachment.mimeType, size } };
  } catch (error) {
    await rm(target, { force: true });
    if (error instanceof FileTooLargeError) return { ok: false, note: tooLargeNote(attachment.name, error.size, context.maxFileBytes) };
    const platformError = toPlatformError(error, "download a file", context.token);
    return { ok: false, note: `[file ${attachment.name} could not be downloaded: ${platformError.userMessage}]` };
  }
}

class FileTooLargeError extends Error {
  constructor(readonly size: number) {
    super(`file larger than ${size} bytes`);
  }
}

/** Streams a URL to a file, aborting as soon as it grows past the cap (Content-Length may lie or be absent). */
async function fetchCapped(url: string, target: string, maxBytes: number): Promise<number> {
  const response = await fetch(url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
  if (!response.ok || !response.body) {
    throw new PlatformError(`Telegram answered ${response.status} to a file download.`, { reason: "refused" });
  }
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    await response.body.cancel();
    throw new FileTooLargeError(declared);
  }
  let received = 0;
  const source = Readable.fromWeb(response.body as import("node:stream/web").ReadableStream);
  source.on("data", (chunk: Buffer) => {
    received += chunk.length;
    if (received > maxBytes) source.destroy(new FileTooLargeError(received));
  });
  await pipeline(source, createWriteStream(target, { mode: 0o600 }));
  return received;
}

/** A self-hosted Bot API server started with `--local` answers getFile with a path on its own disk. */
async function copyLocalFile(source: string, target: string, maxBytes: number): Promise<number> {
  const { size } = await stat(source);
  if (size > maxBytes) throw new FileTooLargeError(size);
  await copyFile(source, target);
  await chmod(target, 0o600);
  return size;
}

function safeFileName(name: string): string {
  const base = path.basename(name).replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "");
  return base.slice(-100) || "file";
}

function tooLargeNote(name: string, size: number, maxBytes: number): string {
  return `[file ${name} not downloaded: ${formatMegabytes(size)} exceeds the ${formatMegabytes(maxBytes)} limit]`;
}

function formatMegabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

// Files in the web chat, both ways. Out: a file the core uploads is kept with the conversation
// (`files/<conversation>/<message id>`, 0600) and served to the page at `/files/<conversation>/<id>`
// behind the token; raster images inline, everything else as a download. In: the page POSTs each
// file the operator picked to `/api/upload` (the bytes as the body, the name in a header), gets an
// id back, and names the ids in its `send`; the core fetches them from here like any platform's
// files, and they are deleted once the message was handled (or after an hour unsent).
import { randomBytes } from "node:crypto";
import { copyFile, mkdir, rm, stat } from "node:fs/promises";
import { createReadStream, createWriteStream, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { PlatformError } from "../../kernel/errors.js";
import type { InboundFile, OutboundFile } from "../contract.js";

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
/** An upload the page never named in a message is dropped after this long. */
const UNSENT_UPLOAD_MS = 60 * 60 * 1000;
/** Shown inline by the page; anything else is offered as a download (an SVG can carry script). */
export const INLINE_IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
const ID_PATTERN = /^[A-Za-z0-9_-]{6,64}$/;
const MAX_NAME_CHARS = 200;

export interface StoredFile {
  name: string;
  mimeType: string;
  size: number;
}

interface Upload extends StoredFile {
  path: string;
  at: number;
}

export class UploadTooLargeError extends PlatformError {}

export class WebFiles {
  private readonly uploads = new Map<string, Upload>();
  /** Uploads the core fetched (tests check that a stranger's never are; the web chat has none). */
  fetched = 0;

  constructor(private readonly dir: string) {}

  /** Uploads left by an earlier run are gone with it. */
  open(): void {
    rmSync(join(this.dir, "uploads"), { recursive: true, force: true });
    mkdirSync(join(this.dir, "uploads"), { recursive: true, mode: DIR_MODE });
  }

  /** Keeps Baton's outbound file with the message that shows it. */
  async keep(conversation: string, messageId: string, file: OutboundFile): Promise<StoredFile> {
    const folder = join(this.dir, "files", conversation);
    await mkdir(folder, { recursive: true, mode: DIR_MODE });
    await copyFile(file.path, join(folder, messageId));
    return { name: file.name, mimeType: file.mimeType, size: file.size };
  }

  /** The bytes of a kept file, for the page. */
  async read(conversation: string, messageId: string): Promise<Readable | undefined> {
    if (!ID_PATTERN.test(conversation) || !ID_PATTERN.test(messageId)) return undefined;
    const path = join(this.dir, "files", conversation, messageId);
    if (!(await stat(path).catch(() => undefined))?.isFile()) return undefined;
    return createReadStream(path);
  }

  /** A message with a file fell out of the history: its file goes too. */
  async drop(conversation: string, messageId: string): Promise<void> {
    if (ID_PATTERN.test(conversation) && ID_PATTERN.test(messageId)) await rm(join(this.dir, "files", conversation, messageId), { force: true });
  }

  async forget(conversation: string): Promise<void> {
    await rm(join(this.dir, "files", conversation), { recursive: true, force: true });
  }

  /** Stores an upload from the page; refuses it past `maxBytes` while it streams in. */
  async receive(body: ReadableStream<Uint8Array>, name: string, mimeType: string, maxBytes: number): Promise<{ id: string } & StoredFile> {
    this.dropUnsent();
    const id = randomBytes(9).toString("base64url");
    const path = join(this.dir, "uploads", id);
    let size = 0;
    const cap = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        done(size > maxBytes ? new UploadTooLargeError(`The file is larger than ${Math.round(maxBytes / (1024 * 1024))} MB.`, { reason: "refused" }) : null, chunk);
      },
    });
    try {
      await pipeline(Readable.fromWeb(body as import("node:stream/web").ReadableStream), cap, createWriteStream(path, { mode: FILE_MODE }));
    } catch (error) {
      await rm(path, { force: true });
      throw error;
    }
    const upload: Upload = { name: cleanName(name), mimeType: mimeType || "application/octet-stream", size, path, at: Date.now() };
    this.uploads.set(id, upload);
    return { id, name: upload.name, mimeType: upload.mimeType, size };
  }

  /** The uploads a message names, as files the core may fetch; unknown ids are left out. */
  inbound(ids: string[]): InboundFile[] {
    return ids.flatMap((id) => {
      const upload = this.uploads.get(id);
      if (!upload) return [];
      return [{ name: upload.name, mimeType: upload.mimeType, size: upload.size, fetch: async () => (this.fetched++, createReadStream(upload.path)) }];
    });
  }

  describe(ids: string[]): StoredFile[] {
    return ids.flatMap((id) => {
      const upload = this.uploads.get(id);
      return upload ? [{ name: upload.name, mimeType: upload.mimeType, size: upload.size }] : [];
    });
  }

  /** The message was handled: its uploads are deleted (the core has its own copy where it fetched them). */
  async release(ids: string[]): Promise<void> {
    for (const id of ids) {
      const upload = this.uploads.get(id);
      this.uploads.delete(id);
      if (upload) await rm(upload.path, { force: true });
    }
  }

  private dropUnsent(): void {
    const cutoff = Date.now() - UNSENT_UPLOAD_MS;
    for (const [id, upload] of this.uploads) if (upload.at < cutoff) void this.release([id]);
  }
}

function cleanName(name: string): string {
  const base = name.split(/[/\\]/).at(-1) ?? "";
  return base.replace(/[\u0000-\u001f\u007f]/g, "").slice(-MAX_NAME_CHARS) || "file";
}

// Files on their way into the chat: an image or file the agent put in its answer, a workspace file
// asked for with /file. Each is staged as Baton's own copy (so a retried upload reads it again),
// then deleted once every route has it. Workspace files come only from inside the thread's
// workspace, on whichever machine it is (the machines seam resolves real paths there).
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { basename, extname, join } from "node:path";
import { lookup } from "mrmime";
import type { Machines } from "../agents/machines/index.js";
import { FileRefusedError } from "../kernel/errors.js";
import type { OutboundFile } from "../platforms/contract.js";
import { megabytes } from "../render/sizes.js";

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
const MAX_NAME_CHARS = 100;
const DEFAULT_MIME = "application/octet-stream";
const EXTENSIONS: Record<string, string> = { "image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp", "image/svg+xml": ".svg", "text/plain": ".txt" };

export interface StagedFile extends OutboundFile {
  /** Deletes Baton's copy (once every route has the file, or it was given up). */
  release(): void;
}

export class OutboundFiles {
  constructor(
    private readonly dir: string,
    private readonly machines: Machines,
    readonly maxBytes: number,
  ) {}

  /** Clears what an earlier run left (uploads that were under way when it stopped). */
  open(): void {
    rmSync(this.dir, { recursive: true, force: true });
    mkdirSync(this.dir, { recursive: true, mode: DIR_MODE });
  }

  /** Bytes the agent sent inline (an image block, an embedded resource). */
  async fromData(name: string | undefined, mimeType: string | undefined, data: Buffer): Promise<StagedFile> {
    const type = mimeType || (name ? lookup(name) : undefined) || DEFAULT_MIME;
    const fileName = safeName(name && extname(name) ? name : `${name ?? (type.startsWith("image/") ? "image" : "file")}${EXTENSIONS[type] ?? ""}`);
    if (data.length > this.maxBytes) throw new FileRefusedError(`${fileName} is ${megabytes(data.length)}, over the ${megabytes(this.maxBytes)} limit for files sent into the chat.`);
    const path = this.newPath(fileName);
    await writeFile(path, data, { mode: FILE_MODE });
    return staged({ name: fileName, mimeType: type, path, size: data.length });
  }

  /** A file of the workspace (relative to it, or absolute inside it); throws FileRefusedError when it may not go. */
  async fromWorkspace(workspace: string, path: string): Promise<StagedFile> {
    const { machine, path: root } = this.machines.locate(workspace);
    const name = safeName(basename(path));
    const dest = this.newPath(name);
    try {
      const copied = await machine.copyOut(root, path, this.maxBytes, dest);
      return staged({ name, mimeType: lookup(name) ?? DEFAULT_MIME, path: dest, size: copied.size });
    } catch (error) {
      await rm(dest, { force: true });
      throw error;
    }
  }

  private newPath(name: string): string {
    mkdirSync(this.dir, { recursive: true, mode: DIR_MODE });
    return join(this.dir, `${Date.now()}-${randomBytes(3).toString("hex")}-${name}`);
  }
}

function staged(file: OutboundFile): StagedFile {
  return { ...file, release: () => void rm(file.path, { force: true }).catch(() => undefined) };
}

function safeName(name: string): string {
  const cleaned = basename(name)
    .replace(/[^\w.@+-]/g, "_")
    .replace(/^\.+/, "");
  return cleaned.slice(-MAX_NAME_CHARS) || "file";
}

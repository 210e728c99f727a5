// The cache of files users sent, so the agent can read them from disk. Files are fetched only for
// allowed users (the pipeline calls this after the access check), capped per file while they
// stream in, and kept under a per-route and a total quota: the oldest files go first, and files
// older than the maximum age are pruned on start and every hour.
import { randomBytes } from "node:crypto";
import { createWriteStream, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { userMessageOf } from "../kernel/errors.js";
import type { LocalFile } from "../commands/context.js";
import type { InboundFile, PlatformLogger } from "../platforms/contract.js";
import { megabytes } from "../render/sizes.js";

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
const FETCH_TIMEOUT_MS = 120_000;
const MAX_NAME_CHARS = 100;

export interface FileCacheLimits {
  maxTotalBytes: number;
  maxRouteBytes: number;
  maxAgeMs: number;
}

interface Entry {
  path: string;
  dir: string;
  size: number;
  at: number;
}

export type FetchResult = { ok: true; file: LocalFile } | { ok: false; note: string };

class TooLargeError extends Error {}

export class FileCache {
  /** Every cached file, oldest first. */
  private entries: Entry[] = [];
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly root: string,
    private readonly limits: FileCacheLimits,
    private readonly log: PlatformLogger,
  ) {}

  /** Reads what an earlier run left, prunes it, and starts the hourly prune. */
  open(): void {
    mkdirSync(this.root, { recursive: true, mode: DIR_MODE });
    for (const dir of safeReaddir(this.root)) {
      const dirPath = join(this.root, dir);
      for (const name of safeReaddir(dirPath)) {
        const path = join(dirPath, name);
        try {
          const stat = statSync(path);
          if (stat.isFile()) this.entries.push({ path, dir, size: stat.size, at: stat.mtimeMs });
        } catch {
          // gone meanwhile
        }
      }
    }
    this.entries.sort((a, b) => a.at - b.at);
    this.prune();
    this.timer = setInterval(() => this.prune(), PRUNE_INTERVAL_MS);
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
  }

  totalBytes(): number {
    return this.entries.reduce((sum, e) => sum + e.size, 0);
  }

  /** Fetches one file into the route's folder; a file over a limit or a failed fetch becomes a note for the agent. */
  async fetch(route: string, file: InboundFile, maxFileBytes: number): Promise<FetchResult> {
    const cap = Math.min(maxFileBytes, this.limits.maxRouteBytes, this.limits.maxTotalBytes);
    if (file.size !== undefined && file.size > cap) return { ok: false, note: tooLargeNote(file.name, file.size, cap) };
    const dir = routeDirName(route);
    this.makeRoom(dir, file.size ?? 0);
    mkdirSync(join(this.root, dir), { recursive: true, mode: DIR_MODE });
    const path = join(this.root, dir, `${Date.now()}-${randomBytes(3).toString("hex")}-${safeFileName(file.name)}`);
    let size = 0;
    try {
      const source = Readable.from(await file.fetch(AbortSignal.timeout(FETCH_TIMEOUT_MS)));
      source.on("data", (chunk: Uint8Array) => {
        size += chunk.byteLength;
        if (size > cap) source.destroy(new TooLargeError());
      });
      await pipeline(source, createWriteStream(path, { mode: FILE_MODE }));
    } catch (error) {
      rmSync(path, { force: true });
      if (error instanceof TooLargeError) return { ok: false, note: tooLargeNote(file.name, size, cap) };
      this.log.warn({ route, file: file.name, err: error }, "could not fetch a file the user sent");
      return { ok: false, note: `[file ${file.name} could not be downloaded: ${userMessageOf(error)}]` };
    }
    this.entries.push({ path, dir, size, at: Date.now() });
    this.makeRoom(dir, 0, path);
    return { ok: true, file: { name: file.name, path, mimeType: file.mimeType, size } };
  }

  /** Drops files past the maximum age. */
  prune(now = Date.now()): void {
    const cutoff = now - this.limits.maxAgeMs;
    this.evict((e) => e.at < cutoff);
  }

  /** Evicts the oldest files until `incoming` more bytes fit the route's and the total quota. */
  private makeRoom(dir: string, incoming: number, keep?: string): void {
    let route = incoming;
    let total = incoming;
    for (const e of this.entries) {
      total += e.size;
      if (e.dir === dir) route += e.size;
    }
    this.evict((e) => {
      if (e.path === keep) return false;
      const overTotal = total > this.limits.maxTotalBytes;
      const overRoute = route > this.limits.maxRouteBytes && e.dir === dir;
      if (!overTotal && !overRoute) return false;
      total -= e.size;
      if (e.dir === dir) route -= e.size;
      return true;
    });
  }

  private evict(drop: (entry: Entry) => boolean): void {
    const kept: Entry[] = [];
    for (const entry of this.entries) {
      if (drop(entry)) rmSync(entry.path, { force: true });
      else kept.push(entry);
    }
    this.entries = kept;
  }
}

/** One folder per route, named so no route can reach outside the cache. */
function routeDirName(route: string): string {
  return route
    .replace(/[^A-Za-z0-9._-]/g, "_")
    .replace(/^\.+/, "_")
    .slice(0, 150);
}

function safeFileName(name: string): string {
  const base = basename(name)
    .replace(/[^A-Za-z0-9._-]/g, "_")
    .replace(/^\.+/, "");
  return base.slice(-MAX_NAME_CHARS) || "file";
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function tooLargeNote(name: string, size: number, cap: number): string {
  return `[file ${name} not downloaded: ${megabytes(size)} exceeds the ${megabytes(cap)} limit]`;
}

// File helpers shared by the readers. Listing reads only the head and tail of each transcript,
// so `handoff list` stays fast over gigabytes of sessions; briefs stream whole files line by line.

import { closeSync, createReadStream, fstatSync, openSync, promises as fs, readdirSync, readFileSync, readSync } from "node:fs";
import path from "node:path";

/** Bytes read from the start of a transcript when listing: metadata and the first prompt, usually. */
const HEAD_BYTES = 16 * 1024;
/** Head read again, once, when the first one held no title or directory (a big first record). */
export const WIDE_HEAD_BYTES = 256 * 1024;
/** Bytes read from the end of a transcript when listing: the latest activity and appended titles. */
const TAIL_BYTES = 8 * 1024;
/** Files read in parallel while listing; more only adds seek contention. */
export const LIST_CONCURRENCY = 32;

export interface HeadTail {
  /** Complete lines of the head (a line cut by the head boundary is dropped). */
  head: string[];
  /** Complete lines of the tail; empty when the head already covered the whole file. */
  tail: string[];
  size: number;
  mtime: Date;
  /** True when the middle of the file was not read. */
  partial: boolean;
}

/**
 * Reads the head and tail lines of a text file without reading the middle. Synchronous on purpose:
 * on small machines the thread pool makes 2,000 async open/stat/read/close round trips several
 * times slower than plain syscalls on page-cached files; callers yield between batches.
 */
export async function readHeadTail(file: string, headBytes = HEAD_BYTES, tailBytes = TAIL_BYTES): Promise<HeadTail> {
  return readHeadTailSync(file, headBytes, tailBytes);
}

/** Reused read buffers: reads are synchronous, so one pair serves every file (less GC churn). */
let sharedHead = Buffer.allocUnsafe(HEAD_BYTES);
let sharedTail = Buffer.allocUnsafe(TAIL_BYTES);

function readHeadTailSync(file: string, headBytes: number, tailBytes: number): HeadTail {
  const fd = openSync(file, "r");
  try {
    const stat = fstatSync(fd);
    const size = stat.size;
    if (size <= headBytes + tailBytes) {
      const buf = Buffer.allocUnsafe(size);
      const n = readSync(fd, buf, 0, size, 0);
      return { head: splitLines(buf.toString("utf8", 0, n), false, false), tail: [], size, mtime: stat.mtime, partial: false };
    }
    if (sharedHead.length < headBytes) sharedHead = Buffer.allocUnsafe(headBytes);
    if (sharedTail.length < tailBytes) sharedTail = Buffer.allocUnsafe(tailBytes);
    const headBuf = sharedHead;
    const tailBuf = sharedTail;
    const h = readSync(fd, headBuf, 0, headBytes, 0);
    const t = readSync(fd, tailBuf, 0, tailBytes, size - tailBytes);
    return {
      head: splitLines(headBuf.toString("utf8", 0, h), false, true),
      tail: splitLines(tailBuf.toString("utf8", 0, t), true, false),
      size,
      mtime: stat.mtime,
      partial: true,
    };
  } finally {
    closeSync(fd);
  }
}

function splitLines(text: string, dropFirst: boolean, dropLast: boolean): string[] {
  const lines = text.split("\n");
  if (dropFirst) lines.shift();
  if (dropLast) lines.pop();
  return lines.filter((l) => l.trim().length > 0);
}

/** Parses one JSON line; a torn or invalid line gives undefined (never fatal). */
function parseLine(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Parses head/tail lines into records, skipping torn ones. */
export function parseLines(lines: string[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of lines) {
    const rec = parseLine(line);
    if (rec) out.push(rec);
  }
  return out;
}

/**
 * Streams every JSON record of a JSONL file; torn lines are skipped and counted. readline loads
 * here, on first use: a listing reads heads and tails and does not need it.
 */
export async function forEachJsonLine(file: string, fn: (rec: Record<string, unknown>) => void): Promise<{ torn: number }> {
  const { createInterface } = await import("node:readline");
  const rl = createInterface({ input: createReadStream(file, { encoding: "utf8" }), crlfDelay: Infinity });
  let torn = 0;
  for await (const line of rl) {
    if (!line.trim()) continue;
    const rec = parseLine(line);
    if (rec) fn(rec);
    else torn++;
  }
  return { torn };
}

/** The records of a small JSONL file (an index beside the transcripts), read at once; [] when it cannot be read. */
export function readSmallJsonl(file: string): Record<string, unknown>[] {
  try {
    return parseLines(readFileSync(file, "utf8").split("\n"));
  } catch {
    return [];
  }
}

export async function readJsonFile(file: string): Promise<Record<string, unknown> | undefined> {
  try {
    return parseLine(await fs.readFile(file, "utf8"));
  } catch {
    return undefined;
  }
}

export async function exists(p: string): Promise<boolean> {
  try {
    await fs.access(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * Directory entries, or [] when the directory is missing. Other errors propagate. Synchronous for
 * the reason readHeadTail is: a listing walks dozens of directories one after another, and each
 * trip through the thread pool cost more than the readdir itself.
 */
export async function entries(dir: string): Promise<import("node:fs").Dirent[]> {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
}

/**
 * path.join(dir, name) for a name read from `dir`, where `dir` is already normalized: path.join
 * normalizes the whole path again, which over 2,000 files cost more than the rest of the listing's
 * path handling.
 */
export function entryPath(dir: string, name: string): string {
  if (dir === ".") return name;
  return dir.endsWith(path.sep) ? dir + name : dir + path.sep + name;
}

/** Files under `dir` (recursively, to `depth` levels) whose name passes `match`. */
export async function findFiles(dir: string, match: (name: string) => boolean, depth: number): Promise<string[]> {
  const out: string[] = [];
  const base = path.normalize(dir);
  for (const ent of await entries(dir)) {
    const full = entryPath(base, ent.name);
    if (ent.isDirectory() && depth > 0) out.push(...(await findFiles(full, match, depth - 1)));
    else if (ent.isFile() && match(ent.name)) out.push(full);
  }
  return out;
}

/** Items handled between yields to the event loop, so a long listing never stalls the daemon. */
export const YIELD_EVERY = 64;

export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Maps with bounded concurrency; a failing item is reported and skipped. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R | undefined>, onError: (item: T, err: unknown) => void): Promise<R[]> {
  const out: R[] = [];
  let next = 0;
  async function worker(): Promise<void> {
    while (next < items.length) {
      const index = next++;
      const item = items[index];
      if (index % YIELD_EVERY === 0) await yieldToLoop();
      try {
        const r = await fn(item);
        if (r !== undefined) out.push(r);
      } catch (err) {
        onError(item, err);
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** Deepest directory walk when resolving a lossy project-folder name back to a path. */
const LOSSY_MAX_DEPTH = 24;

/**
 * Resolves a folder name made by replacing every non-alphanumeric character of a path with `-`
 * (lossy) back to an existing directory, by matching it against the filesystem level by level.
 * Returns null when no existing directory encodes to the name.
 */
export function resolveLossyPath(name: string, leadingDash = false): string | null {
  const enc = (s: string): string => s.replace(/[^A-Za-z0-9]/g, "-");
  const target = leadingDash ? name : `-${name}`;
  function walk(dir: string, rest: string, depth: number): string | null {
    if (rest === "") return dir;
    if (depth > LOSSY_MAX_DEPTH) return null;
    let names: string[];
    try {
      names = readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name);
    } catch {
      return null;
    }
    for (const n of names) {
      const piece = `-${enc(n)}`;
      if (rest === piece || rest.startsWith(`${piece}-`)) {
        const found = walk(path.join(dir, n), rest.slice(piece.length), depth + 1);
        if (found) return found;
      }
    }
    return null;
  }
  return walk(path.parse(process.cwd()).root, target, 0);
}

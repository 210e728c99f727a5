// Where thread events are kept. The JSONL store is the real one; the memory store serves tests
// and benchmarks. Both pass the same contract suite (test/threads/store-contract.ts).
import { chmodSync, existsSync, mkdirSync } from "node:fs";
import { open } from "node:fs/promises";
import { dirname } from "node:path";
import { BatonError } from "../kernel/errors.js";
import { parseThreadEvent, type ThreadEvent } from "./events.js";
import { GroupCommit } from "./group-commit.js";
import { cutTornTail, DEFAULT_READ_CHUNK_BYTES, forEachLine, rewriteLines } from "./jsonl-file.js";

export interface ReplayReport {
  events: number;
  /** Lines that could not be read (a torn last line after a crash, corruption, an invalid event). */
  skipped: Array<{ line: number; reason: string }>;
  /** Set when the registry compacted the log after replaying it. */
  compacted?: { kept: number; dropped: number };
  /** Of the events, how many a standby had read before it took the lead (PostgreSQL store). */
  preread?: number;
}

export interface EventLogStore {
  /** Resolves once the events are durable (fsync'd for the file store); rejects when they are not. Appends are ordered. */
  append(events: ThreadEvent[]): Promise<void>;
  /** Calls `onEvent` for every stored event, in append order. */
  replay(onEvent: (event: ThreadEvent) => void): Promise<ReplayReport>;
  /** Keeps only the events `keep` accepts, in order; atomic (a crash leaves the old log or the new). */
  compact(keep: (event: ThreadEvent) => boolean): Promise<{ kept: number; dropped: number }>;
  close(): Promise<void>;
}

/** An append that did not reach the disk whole. Nothing of it stays in the log. */
/** Where the event log lives, for the words of a failed write. */
const WRITE_FAILED_ADVICE = {
  "data dir": { where: "Baton's data dir", fix: "Free some disk space on the Baton machine and try again." },
  database: { where: "the database (store.url)", fix: "Check that PostgreSQL is reachable from the Baton machine and try again." },
};

export class EventLogWriteError extends BatonError {
  constructor(cause: unknown, store: keyof typeof WRITE_FAILED_ADVICE = "data dir") {
    const reason = cause instanceof Error ? cause.message : String(cause);
    const { where, fix } = WRITE_FAILED_ADVICE[store];
    super(`This change could not be saved to ${where} (${reason}); nothing was changed. ${fix}`, { cause });
  }
}

export class MemoryEventStore implements EventLogStore {
  private events: ThreadEvent[] = [];
  async append(events: ThreadEvent[]): Promise<void> {
    this.events.push(...events.map((e) => structuredClone(e)));
  }
  async replay(onEvent: (event: ThreadEvent) => void): Promise<ReplayReport> {
    for (const e of this.events) onEvent(structuredClone(e));
    return { events: this.events.length, skipped: [] };
  }
  async compact(keep: (event: ThreadEvent) => boolean): Promise<{ kept: number; dropped: number }> {
    const before = this.events.length;
    this.events = this.events.filter((e) => keep(structuredClone(e)));
    return { kept: this.events.length, dropped: before - this.events.length };
  }
  async close(): Promise<void> {}
}

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

/** The few file operations an append needs (a FileHandle has them); tests pass a disk that fills up. */
export interface LogFile {
  write(buffer: Uint8Array, offset: number, length: number): Promise<{ bytesWritten: number }>;
  datasync(): Promise<void>;
  truncate(length: number): Promise<void>;
  stat(): Promise<{ size: number }>;
  close(): Promise<void>;
}

export interface JsonlStoreOptions {
  /** Opens the log for appending (default: the real file, O_APPEND, 0600). */
  open?: (path: string) => Promise<LogFile>;
  /** Bytes read at a time by replay and compaction. */
  readChunkBytes?: number;
}

async function openForAppend(path: string): Promise<LogFile> {
  const handle = await open(path, "a", FILE_MODE);
  chmodSync(path, FILE_MODE);
  return handle;
}

/**
 * Append-only JSONL file, one event per line. Appends are group-committed (a burst costs a few
 * write+fsyncs, not one each; callers resolve once their line is on disk). A write
 * that comes up short or fails (a full disk) is cut back out, so the log stays line-aligned and
 * holds nothing its caller was told had failed.
 */
export class JsonlEventStore implements EventLogStore {
  private file?: LogFile;
  /** Where the last whole, durable line ends. */
  private alignedSize = 0;
  /** Set when a failed append could not be cut back out: the next append cuts it first. */
  private cutPending = false;
  /** Serialises appends (group-committed) and compaction. */
  private readonly commits = new GroupCommit<string>(
    (lines) => this.writeDurably(Buffer.from(lines.join(""), "utf8")),
    (error) => new EventLogWriteError(error),
  );
  private closed = false;
  private readonly openFile: (path: string) => Promise<LogFile>;
  private readonly readChunkBytes: number;

  constructor(
    readonly path: string,
    options: JsonlStoreOptions = {},
  ) {
    mkdirSync(dirname(path), { recursive: true, mode: DIR_MODE });
    this.openFile = options.open ?? openForAppend;
    this.readChunkBytes = options.readChunkBytes ?? DEFAULT_READ_CHUNK_BYTES;
  }

  async replay(onEvent: (event: ThreadEvent) => void): Promise<ReplayReport> {
    const report: ReplayReport = { events: 0, skipped: [] };
    await this.commits.idle();
    if (!existsSync(this.path)) return report;
    const torn = cutTornTail(this.path);
    if (torn) report.skipped.push({ line: torn.line, reason: `torn last line (${torn.bytes} bytes) cut` });
    let lineNo = 0;
    await forEachLine(this.path, this.readChunkBytes, (line) => {
      lineNo++;
      if (line.length === 0) return;
      const read = readEvent(line);
      if ("problem" in read) report.skipped.push({ line: lineNo, reason: read.problem });
      else {
        report.events++;
        onEvent(read.event);
      }
    });
    return report;
  }

  compact(keep: (event: ThreadEvent) => boolean): Promise<{ kept: number; dropped: number }> {
    return this.commits.exclusive(async () => {
      if (!existsSync(this.path)) return { kept: 0, dropped: 0 };
      // The append handle points at the old file; the next append opens the new one.
      await this.file?.close();
      this.file = undefined;
      cutTornTail(this.path);
      return rewriteLines(this.path, FILE_MODE, this.readChunkBytes, (line) => {
        const read = readEvent(line);
        return "event" in read && keep(read.event);
      });
    });
  }

  append(events: ThreadEvent[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error("event store is closed"));
    if (events.length === 0) return Promise.resolve();
    return this.commits.append([`${events.map((e) => JSON.stringify(e)).join("\n")}\n`]);
  }

  private async writeDurably(data: Buffer): Promise<void> {
    const file = await this.appendFile();
    if (this.cutPending) {
      await file.truncate(this.alignedSize);
      this.cutPending = false;
    }
    const start = this.alignedSize;
    try {
      for (let offset = 0; offset < data.length; ) {
        const { bytesWritten } = await file.write(data, offset, data.length - offset);
        if (bytesWritten <= 0) throw new Error("the disk took no bytes of the write");
        offset += bytesWritten;
      }
      await file.datasync();
      this.alignedSize = start + data.length;
    } catch (error) {
      // Cut the partial lines back out: the next event must not be glued to a torn one, and an
      // event whose append failed must not come back at the next start.
      try {
        await file.truncate(start);
        await file.datasync();
      } catch {
        this.cutPending = true;
      }
      throw error;
    }
  }

  private async appendFile(): Promise<LogFile> {
    if (!this.file) {
      // Appends after a crash start on a whole line even when nothing replayed the log first.
      if (existsSync(this.path)) cutTornTail(this.path);
      this.file = await this.openFile(this.path);
      this.alignedSize = (await this.file.stat()).size;
    }
    return this.file;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.commits.idle();
    await this.file?.close();
    this.file = undefined;
  }
}

function readEvent(line: string): { event: ThreadEvent } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { problem: "not valid JSON" };
  }
  return parseThreadEvent(value);
}

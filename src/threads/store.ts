// Where thread events are kept. The JSONL store is the real one; the memory store serves tests
// and benchmarks. Both pass the same contract suite (test/threads/store-contract.ts).
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, chmodSync, ftruncateSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import type { ThreadEvent } from "./events.js";

export interface ReplayReport {
  events: number;
  /** Lines that could not be read (a torn last line after a crash, or corruption). */
  skipped: Array<{ line: number; reason: string }>;
}

export interface EventLogStore {
  /** Resolves once the events are durable (fsync'd for the file store). Appends are ordered. */
  append(events: ThreadEvent[]): Promise<void>;
  /** Calls `onEvent` for every stored event, in append order. */
  replay(onEvent: (event: ThreadEvent) => void): Promise<ReplayReport>;
  close(): Promise<void>;
}

export class MemoryEventStore implements EventLogStore {
  private readonly events: ThreadEvent[] = [];
  async append(events: ThreadEvent[]): Promise<void> {
    this.events.push(...events.map((e) => structuredClone(e)));
  }
  async replay(onEvent: (event: ThreadEvent) => void): Promise<ReplayReport> {
    for (const e of this.events) onEvent(structuredClone(e));
    return { events: this.events.length, skipped: [] };
  }
  async close(): Promise<void> {}
}

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

/**
 * Append-only JSONL file, one event per line. Appends are group-committed: every append that
 * arrives while a write+fsync is in flight goes into the next single write+fsync, so a burst costs
 * a few fsyncs, not one each, and callers still only resolve once their line is on disk.
 */
export class JsonlEventStore implements EventLogStore {
  private handle?: FileHandle;
  private pending: Array<{ lines: string; resolve: () => void; reject: (e: unknown) => void }> = [];
  private flushing?: Promise<void>;
  private closed = false;

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true, mode: DIR_MODE });
  }

  async replay(onEvent: (event: ThreadEvent) => void): Promise<ReplayReport> {
    const report: ReplayReport = { events: 0, skipped: [] };
    if (!existsSync(this.path)) return report;
    this.repairTornTail(report);
    const text = readFileSync(this.path, "utf8");
    let start = 0;
    let lineNo = 0;
    while (start < text.length) {
      let end = text.indexOf("\n", start);
      if (end === -1) end = text.length;
      lineNo++;
      const line = text.slice(start, end);
      start = end + 1;
      if (line.length === 0) continue;
      let event: ThreadEvent;
      try {
        event = JSON.parse(line) as ThreadEvent;
      } catch {
        report.skipped.push({ line: lineNo, reason: "not valid JSON" });
        continue;
      }
      if (typeof event !== "object" || event === null || typeof event.type !== "string" || typeof event.thread !== "string") {
        report.skipped.push({ line: lineNo, reason: "not an event" });
        continue;
      }
      report.events++;
      onEvent(event);
    }
    return report;
  }

  /** A crash mid-append can leave a last line without its newline: cut it so the next append starts clean. */
  private repairTornTail(report: ReplayReport): void {
    const fd = openSync(this.path, "r+");
    try {
      const size = fstatSync(fd).size;
      if (size === 0) return;
      const tail = Buffer.alloc(1);
      readSync(fd, tail, 0, 1, size - 1);
      if (tail[0] === 0x0a) return;
      // Find the last newline by scanning back in blocks.
      const block = Buffer.alloc(64 * 1024);
      let pos = size;
      let cut = 0;
      while (pos > 0) {
        const len = Math.min(block.length, pos);
        pos -= len;
        readSync(fd, block, 0, len, pos);
        const idx = block.subarray(0, len).lastIndexOf(0x0a);
        if (idx !== -1) {
          cut = pos + idx + 1;
          break;
        }
      }
      const lineNo = cut === 0 ? 1 : readFileSync(this.path).subarray(0, cut).toString("utf8").split("\n").length;
      report.skipped.push({ line: lineNo, reason: `torn last line (${size - cut} bytes) cut` });
      ftruncateSync(fd, cut);
    } finally {
      closeSync(fd);
    }
  }

  append(events: ThreadEvent[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error("event store is closed"));
    if (events.length === 0) return Promise.resolve();
    const lines = events.map((e) => JSON.stringify(e)).join("\n") + "\n";
    return new Promise((resolve, reject) => {
      this.pending.push({ lines, resolve, reject });
      if (!this.flushing) this.flushing = this.flushLoop();
    });
  }

  private async flushLoop(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const batch = this.pending;
        this.pending = [];
        try {
          const handle = await this.file();
          await handle.write(batch.map((b) => b.lines).join(""));
          await handle.datasync();
          for (const b of batch) b.resolve();
        } catch (error) {
          for (const b of batch) b.reject(error);
        }
      }
    } finally {
      this.flushing = undefined;
    }
  }

  private async file(): Promise<FileHandle> {
    if (!this.handle) {
      this.handle = await open(this.path, "a", FILE_MODE);
      chmodSync(this.path, FILE_MODE);
    }
    return this.handle;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.flushing;
    await this.handle?.close();
    this.handle = undefined;
  }
}

// File-level pieces of the JSONL event log: reading it line by line as a stream (never as one
// string), cutting a torn last line, and replacing it atomically with a rewritten copy.
import { closeSync, createReadStream, fstatSync, fsyncSync, openSync, readSync, ftruncateSync, renameSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import { dirname } from "node:path";

const NEWLINE = 0x0a;
const TAIL_SCAN_BYTES = 64 * 1024;
export const DEFAULT_READ_CHUNK_BYTES = 1024 * 1024;

/**
 * Calls `onLine` for every line of the file (without its newline), streaming it in chunks; a line
 * cut across chunks, multi-byte characters included, is joined before it is decoded. `afterChunk`
 * runs between chunks (the rewriter flushes there).
 */
export async function forEachLine(path: string, chunkBytes: number, onLine: (line: string) => void, afterChunk?: () => Promise<void>): Promise<void> {
  const parts: Buffer[] = [];
  for await (const chunk of createReadStream(path, { highWaterMark: chunkBytes }) as AsyncIterable<Buffer>) {
    let start = 0;
    let nl = chunk.indexOf(NEWLINE);
    while (nl !== -1) {
      const piece = chunk.subarray(start, nl);
      onLine(parts.length > 0 ? Buffer.concat([...parts.splice(0), piece]).toString("utf8") : piece.toString("utf8"));
      start = nl + 1;
      nl = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) parts.push(chunk.subarray(start));
    await afterChunk?.();
  }
  if (parts.length > 0) onLine(Buffer.concat(parts).toString("utf8"));
}

/**
 * A crash mid-append can leave a last line without its newline: cuts it so the next append starts
 * clean. Returns the cut (its line number and size), or undefined when the file ends cleanly.
 */
export function cutTornTail(path: string): { line: number; bytes: number } | undefined {
  const fd = openSync(path, "r+");
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return undefined;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    if (last[0] === NEWLINE) return undefined;
    const block = Buffer.alloc(TAIL_SCAN_BYTES);
    let pos = size;
    let cut = 0;
    while (pos > 0) {
      const len = Math.min(block.length, pos);
      pos -= len;
      readSync(fd, block, 0, len, pos);
      const idx = block.subarray(0, len).lastIndexOf(NEWLINE);
      if (idx !== -1) {
        cut = pos + idx + 1;
        break;
      }
    }
    const line = cut === 0 ? 1 : countNewlines(fd, cut) + 1;
    ftruncateSync(fd, cut);
    fsyncSync(fd);
    return { line, bytes: size - cut };
  } finally {
    closeSync(fd);
  }
}

function countNewlines(fd: number, end: number): number {
  const block = Buffer.alloc(TAIL_SCAN_BYTES);
  let count = 0;
  for (let pos = 0; pos < end; pos += block.length) {
    const len = readSync(fd, block, 0, Math.min(block.length, end - pos), pos);
    for (let i = 0; i < len; i++) if (block[i] === NEWLINE) count++;
  }
  return count;
}

/**
 * Replaces `path` with the lines `keep` accepts, atomically: the copy is written and fsync'd beside
 * it, renamed over it, and the directory fsync'd, so a crash leaves either the old log or the new.
 */
export async function rewriteLines(path: string, mode: number, chunkBytes: number, keep: (line: string) => boolean): Promise<{ kept: number; dropped: number }> {
  const tmp = `${path}.compacting`;
  rmSync(tmp, { force: true }); // left by a crash during an earlier compaction
  const out = await open(tmp, "w", mode);
  let kept = 0;
  let dropped = 0;
  let buffered: string[] = [];
  const flush = async () => {
    if (buffered.length === 0) return;
    const data = buffered.join("");
    buffered = [];
    await out.writeFile(data);
  };
  try {
    await forEachLine(
      path,
      chunkBytes,
      (line) => {
        if (line.length === 0) return;
        if (keep(line)) {
          kept++;
          buffered.push(`${line}\n`);
        } else dropped++;
      },
      flush,
    );
    await flush();
    await out.datasync();
  } catch (error) {
    await out.close();
    rmSync(tmp, { force: true });
    throw error;
  }
  await out.close();
  renameSync(tmp, path);
  const dir = openSync(dirname(path), "r");
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
  return { kept, dropped };
}

// A limited listing (`baton handoff list` shows 25 by default) only needs the newest sessions, and
// a transcript's last record is written no later than its file's modification time. So files are
// read newest-modified first, and once `limit` shown sessions are known, a file modified before the
// oldest of them cannot enter the list and is not read: 25 of 2,000 transcripts instead of all.
import { statSync } from "node:fs";
import type { StoredSession } from "./types.js";
import { mapLimit, YIELD_EVERY, yieldToLoop } from "./files.js";

/**
 * How far a session's recorded activity may run ahead of its file's mtime: timestamps written by
 * another machine's clock in a copied store. Files within this margin of the cut-off are still read.
 */
const MTIME_SLACK_MS = 10 * 60_000;

/** The newest `limit` sessions that will be shown, across every reader listing at the same time. */
export class NewestWindow {
  private readonly newest = new Map<string, number>();
  private cutoffMs = -Infinity;

  constructor(
    private readonly limit: number,
    /** Whether a session will be shown (the listing's filters), so hidden ones do not fill the window. */
    private readonly shown: (session: StoredSession) => boolean,
  ) {}

  offer(session: StoredSession): void {
    if (!this.shown(session)) return;
    const at = Date.parse(session.lastActivity);
    if (!Number.isFinite(at)) return;
    // One entry per session: Codex keeps a thread in several rollout files.
    const key = `${session.runtime}\0${session.id}`;
    if ((this.newest.get(key) ?? -Infinity) >= at) return;
    this.newest.set(key, at);
    if (this.newest.size >= this.limit && at > this.cutoffMs) {
      this.cutoffMs = [...this.newest.values()].sort((a, b) => b - a)[this.limit - 1];
    }
  }

  /** True when nothing in a file last modified at `mtimeMs` can be among the newest `limit`. */
  excludes(mtimeMs: number): boolean {
    return mtimeMs + MTIME_SLACK_MS < this.cutoffMs;
  }
}

/**
 * Maps over a store's files like mapLimit; with a window, one at a time, newest-modified first,
 * up to the first file the window excludes. One at a time, because a file started before the window
 * fills is read in full; the reads are synchronous anyway, so running them side by side gains nothing.
 */
export async function mapNewestFirst<T>(
  window: NewestWindow | undefined,
  items: T[],
  fileOf: (item: T) => string,
  concurrency: number,
  fn: (item: T) => Promise<StoredSession | undefined>,
  onError: (item: T, err: unknown) => void,
): Promise<StoredSession[]> {
  if (!window) return mapLimit(items, concurrency, fn, onError);
  const byMtime = items.map((item) => ({ item, mtimeMs: mtimeOf(fileOf(item)) })).sort((a, b) => b.mtimeMs - a.mtimeMs);
  const out: StoredSession[] = [];
  for (let i = 0; i < byMtime.length; i++) {
    const { item, mtimeMs } = byMtime[i];
    // Newest first, and the window's cut-off only rises: once a file is too old, so is every file
    // after it (stopping here spared an async call per skipped file, most of a listing's JS time).
    if (window.excludes(mtimeMs)) break;
    if (i % YIELD_EVERY === YIELD_EVERY - 1) await yieldToLoop();
    try {
      const session = await fn(item);
      if (session) {
        window.offer(session);
        out.push(session);
      }
    } catch (err) {
      onError(item, err);
    }
  }
  return out;
}

/** A file that cannot be stat'ed is read anyway (its error is reported there). */
function mtimeOf(file: string): number {
  try {
    return statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? Infinity;
  } catch {
    return Infinity;
  }
}

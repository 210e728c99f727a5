// Shared machinery for transcript-per-file stores. A runtime describes how to read one record
// (`Interpret`); listing applies it to a file's head and tail, a brief applies it to every line.

import { statSync } from "node:fs";
import type { SessionCounts, SessionStep, StoredSession } from "./types.js";
import { forEachJsonLine, type HeadTail, parseLines, readHeadTail, WIDE_HEAD_BYTES } from "./files.js";
import { later, titleOf } from "./text.js";

/** Title sources, weakest first; a stronger source wins, and among equals the later one. */
export const TitleRank = { firstPrompt: 0, summary: 1, lastPrompt: 2, generated: 3, custom: 4 } as const;

export interface RecordInfo {
  id?: string;
  cwd?: string;
  branch?: string;
  title?: string;
  titleRank?: number;
  at?: string;
  /** Parent session id, for subagent transcripts that name it inside. */
  parent?: string;
  steps?: SessionStep[];
  /** Free-form values a reader wants back in `extra` (session kind, key, …). */
  meta?: Record<string, string>;
}

/**
 * Reads one record. A reader that pairs records (a tool call with its result, to tell a command
 * that ran from one the user rejected) keeps state in a fresh Interpret per file, and hands back
 * what is still unpaired at the end through `flush`.
 */
export type Interpret = ((rec: Record<string, unknown>) => RecordInfo | undefined) & { flush?: () => SessionStep[] };

/** Makes a new stateful Interpret for each file read. */
export interface StatefulInterpret {
  fresh(): Interpret;
}

export interface Summary {
  id?: string;
  cwd?: string;
  branch?: string;
  title: string;
  lastActivity?: string;
  parent?: string;
  counts: SessionCounts;
  meta: Record<string, string>;
  mtime: Date;
  size: number;
}

class Summarizer {
  id?: string;
  cwd?: string;
  branch?: string;
  parent?: string;
  lastAt?: string;
  title?: string;
  rank = -1;
  counts: SessionCounts = { prompts: 0, replies: 0, tools: 0 };
  meta: Record<string, string> = {};
  /** The head alone held the id, directory and a title (the tail may only add later ones). */
  headComplete = false;

  add(info: RecordInfo | undefined): void {
    if (!info) return;
    this.id ??= info.id;
    // The latest cwd/branch wins: sessions that moved directory resume where they last ran.
    if (info.cwd) this.cwd = info.cwd;
    if (info.branch) this.branch = info.branch;
    this.parent ??= info.parent;
    if (info.meta) Object.assign(this.meta, info.meta);
    this.lastAt = later(this.lastAt, info.at);
    if (info.title && (info.titleRank ?? 0) >= this.rank && (info.titleRank ?? 0) > TitleRank.firstPrompt) {
      this.title = info.title;
      this.rank = info.titleRank ?? 0;
    }
    for (const step of info.steps ?? []) {
      if (step.kind === "prompt") {
        this.counts.prompts++;
        if (this.rank < TitleRank.firstPrompt) {
          this.title = step.text;
          this.rank = TitleRank.firstPrompt;
        }
      } else if (step.kind === "reply") this.counts.replies++;
      else this.counts.tools++;
    }
  }
}

function summarize(ht: HeadTail, interpret: Interpret): Summarizer {
  const s = new Summarizer();
  for (const rec of parseLines(ht.head)) s.add(interpret(rec));
  s.headComplete = !!(s.id && s.cwd && s.title);
  for (const rec of parseLines(ht.tail)) s.add(interpret(rec));
  s.add({ steps: interpret.flush?.() });
  return s;
}

function toSummary(s: Summarizer, ht: HeadTail): Summary {
  return {
    id: s.id,
    cwd: s.cwd,
    branch: s.branch,
    title: titleOf(s.title),
    lastActivity: s.lastAt,
    parent: s.parent,
    counts: ht.partial ? { ...s.counts, approximate: true } : s.counts,
    meta: s.meta,
    mtime: ht.mtime,
    size: ht.size,
  };
}

/** Summarizes already-decoded lines (compressed stores, which cannot be read in pieces). */
export function summarizeLines(lines: string[], interpret: Interpret, file: string): Summary {
  const st = statSync(file);
  const ht: HeadTail = { head: lines, tail: [], size: st.size, mtime: st.mtime, partial: false };
  return toSummary(summarize(ht, interpret), ht);
}

/**
 * Summarizes a JSONL transcript from its head and tail only. `interpret` is called afresh for each
 * read (a stateful reader's `fresh()` makes a new one). `headBytes` suits stores whose
 * first record is large by design.
 */
export async function summarizeJsonl(file: string, interpret: Interpret | StatefulInterpret, opts: { headBytes?: number } = {}): Promise<Summary> {
  const fresh = (): Interpret => ("fresh" in interpret ? interpret.fresh() : interpret);
  let ht = await readHeadTail(file, opts.headBytes);
  let s = summarize(ht, fresh());
  if (ht.partial && !s.headComplete) {
    // A large first record (pasted file, long instructions) pushed the metadata or the first
    // prompt past the head: a session listed without its directory could not be resumed, and a
    // title taken from the tail would be the latest request, not the first.
    ht = await readHeadTail(file, WIDE_HEAD_BYTES);
    s = summarize(ht, fresh());
  }
  return toSummary(s, ht);
}

/** Streams a JSONL transcript's steps; reports torn lines through `warn`. */
export async function streamJsonlSteps(file: string, interpret: Interpret, emit: (step: SessionStep) => void, warn?: (m: string) => void): Promise<void> {
  const { torn } = await forEachJsonLine(file, (rec) => {
    for (const step of interpret(rec)?.steps ?? []) emit(step);
  });
  for (const step of interpret.flush?.() ?? []) emit(step);
  if (torn > 0) warn?.(`${file}: skipped ${torn} unreadable line(s)`);
}

/** Builds the listed session from a summary, with the file's mtime as a last resort for activity. */
export function sessionFrom(runtime: string, file: string, s: Summary, fallbackId: string, more: Partial<StoredSession> = {}): StoredSession {
  return {
    id: s.id ?? fallbackId,
    runtime,
    title: s.title || "(untitled)",
    cwd: s.cwd ?? null,
    ...(s.branch ? { branch: s.branch } : {}),
    lastActivity: s.lastActivity ?? s.mtime.toISOString(),
    file,
    counts: s.counts,
    ...(s.parent ? { subagentOf: s.parent } : {}),
    ...(Object.keys(s.meta).length ? { extra: s.meta } : {}),
    ...more,
  };
}

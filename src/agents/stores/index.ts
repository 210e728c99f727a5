// The one entry point to every runtime's session store: list (newest first) and find by id or
// unique prefix. Used by `baton handoff` and by the daemon's /session, /pickup and get_session_id.

import { statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ReaderContext, StoredSession, StoreInfo, StoreReader } from "./types.js";
import { MIN_PREFIX_CHARS, SessionLookupError } from "./errors.js";
import { stores, type StoreEntry } from "./registry.js";
import { NewestWindow } from "./newest.js";
import { canonicalRuntimeId, describeBadId, isSafeSessionRef, isValidSessionId, sessionIdShape } from "../runtimes/session-ids.js";

export type { StoredSession, StoreReader, StoreInfo, SessionStep, StepKind, SessionCounts, ReaderContext } from "./types.js";
export type { StoreEntry } from "./registry.js";
export { SessionLookupError, StoreReadError, MIN_PREFIX_CHARS } from "./errors.js";
export { shortIdLength, SHORT_ID_CHARS } from "../runtimes/session-ids.js";

export interface StoreOptions {
  /** Only this runtime. */
  runtime?: string;
  /** Store locations by runtime id, overriding the defaults (`--store-dir`). */
  storeDirs?: Record<string, string>;
  /** Baton's data dir (for the demo agent's store); defaults to $BATON_DATA_DIR or ~/.baton. */
  dataDir?: string;
  /** Environment used to resolve default locations; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Home directory used for default locations; defaults to the environment's HOME, else os.homedir(). */
  home?: string;
}

export interface ListOptions extends StoreOptions {
  /** Only sessions that ran in this directory or below it. */
  dir?: string;
  includeSubagents?: boolean;
  /** Maximum sessions; 0 or undefined lists all. */
  limit?: number;
}

/** The store of a runtime Baton can read, its reader not loaded yet (`load()`, or loadReader). */
export function getReader(runtime: string): StoreEntry | undefined {
  const id = canonicalRuntimeId(runtime);
  return stores().find((r) => r.runtime === id);
}

export async function loadReader(runtime: string): Promise<StoreReader | undefined> {
  return getReader(runtime)?.load();
}

/** The store location a reader will use under these options. */
export function storeDirFor(reader: StoreInfo, opts: StoreOptions): string {
  const override = opts.storeDirs?.[reader.runtime] ?? Object.entries(opts.storeDirs ?? {}).find(([k]) => canonicalRuntimeId(k) === reader.runtime)?.[1];
  if (override) return path.resolve(override);
  // Baton's own data dir (where the demo agent keeps its sessions) as its products read it.
  const env = opts.dataDir ? { ...(opts.env ?? process.env), BATON_DATA_DIR: opts.dataDir } : (opts.env ?? process.env);
  return reader.defaultDir(env, homeOf(opts));
}

export function contextFor(reader: StoreInfo, opts: StoreOptions & { includeSubagents?: boolean }, warnings: string[]): ReaderContext {
  return {
    dir: storeDirFor(reader, opts),
    env: opts.env ?? process.env,
    home: homeOf(opts),
    includeSubagents: opts.includeSubagents ?? false,
    warn: (m) => warnings.push(m),
  };
}

/**
 * The home the runtimes see: the one given, else HOME of the environment the agents run with (a
 * daemon started with another HOME than its own user's reads that HOME's stores), else the user's.
 */
function homeOf(opts: StoreOptions): string {
  return opts.home ?? (opts.env?.HOME || os.homedir());
}

function selectStores(runtime: string | undefined): StoreEntry[] {
  if (!runtime) return stores();
  const store = getReader(runtime);
  if (!store) {
    throw new SessionLookupError(
      "not_found",
      `Unknown runtime "${runtime}". Readable runtimes: ${stores()
        .map((r) => r.runtime)
        .join(", ")}.`,
    );
  }
  return [store];
}

/** False when nothing the store reads exists; anything else (unreadable, not a directory) is left to its reader to report. */
function mayHoldSessions(store: StoreEntry, ctx: ReaderContext): boolean {
  return (store.paths?.(ctx) ?? [ctx.dir]).some((p) => {
    // Only "no such file" means nothing is there: a path through a file (ENOTDIR) is the reader's
    // to report, and Node 26's throwIfNoEntry: false hides ENOTDIR where Node 20's throws it.
    try {
      statSync(p);
      return true;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code !== "ENOENT";
    }
  });
}

function within(cwd: string | null, dir: string): boolean {
  if (!cwd) return false;
  const rel = path.relative(dir, cwd);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/** Sessions from every readable store, newest first. An unreadable store becomes a warning. */
export async function listSessions(opts: ListOptions = {}): Promise<{ sessions: StoredSession[]; warnings: string[] }> {
  const warnings: string[] = [];
  const stores = selectStores(opts.runtime);
  const dir = opts.dir ? path.resolve(opts.dir) : undefined;
  const shown = (s: StoredSession): boolean => (!!opts.includeSubagents || !s.subagentOf) && (!dir || within(s.cwd, dir));
  const newest = opts.limit && opts.limit > 0 ? new NewestWindow(opts.limit, (s) => shown(s) && hasValidId(s)) : undefined;
  const results = await Promise.all(
    stores.map(async (store) => {
      const ctx = { ...contextFor(store, opts, warnings), newest };
      if (!mayHoldSessions(store, ctx)) return [];
      const reader = await store.load();
      try {
        return checkIds(reader, await reader.list(ctx), ctx.warn);
      } catch (err) {
        warnings.push(`${reader.label}: cannot read ${ctx.dir}: ${(err as Error).message}`);
        return [];
      }
    }),
  );
  let sessions = results.flat().filter(shown);
  sessions.sort((a, b) => (a.lastActivity < b.lastActivity ? 1 : a.lastActivity > b.lastActivity ? -1 : 0));
  if (opts.limit && opts.limit > 0) sessions = sessions.slice(0, opts.limit);
  return { sessions, warnings };
}

function hasValidId(s: StoredSession, runtime = s.runtime): boolean {
  return isValidSessionId(runtime, s.id, { subagent: !!s.subagentOf });
}

/**
 * Sessions whose id is not one of their runtime's ids are left out (a transcript can name itself
 * `--dangerously-skip-permissions`, and ids end up as command-line arguments); a native reference
 * that is not safe as an argument makes the session not reopenable natively.
 */
function checkIds(reader: StoreInfo, sessions: StoredSession[], warn: (m: string) => void): StoredSession[] {
  const out: StoredSession[] = [];
  for (const s of sessions) {
    if (!hasValidId(s, reader.runtime)) {
      warn(`${reader.label}: skipped ${s.file}: its session id ${describeBadId(s.id)} is not a valid ${reader.label} session id (${sessionIdShape(reader.runtime)}).`);
      continue;
    }
    if (s.native?.ref !== undefined && !isSafeSessionRef(s.native.ref)) s.native = { ok: false, reason: `its session reference ${describeBadId(s.native.ref)} is not a valid argument` };
    out.push(s);
  }
  return out;
}

/** One line per candidate, for the ambiguous-prefix error. */
export function describeCandidate(s: StoredSession): string {
  return `${s.runtime} ${s.id}  ${s.title}${s.cwd ? `  (${s.cwd})` : ""}`;
}

/**
 * The session with this id, or the only one whose id starts with this prefix (≥ 6 chars).
 * Subagents are searched too, since an id can name one directly.
 */
export async function findSession(idOrPrefix: string, opts: StoreOptions = {}): Promise<StoredSession> {
  const needle = idOrPrefix.trim();
  const { sessions } = await listSessions({ ...opts, includeSubagents: true });
  const exact = sessions.filter((s) => s.id === needle);
  if (exact.length === 1) return exact[0];
  if (exact.length > 1) throw ambiguous(needle, exact);
  if (needle.length < MIN_PREFIX_CHARS) {
    throw new SessionLookupError("too_short", `A session id prefix needs at least ${MIN_PREFIX_CHARS} characters; "${needle}" has ${needle.length}.`);
  }
  const matches = sessions.filter((s) => s.id.startsWith(needle));
  if (matches.length === 1) return matches[0];
  if (matches.length === 0) {
    const where = opts.runtime ? ` in the ${opts.runtime} store` : "";
    throw new SessionLookupError("not_found", `No session ${needle}${where}. Try \`baton handoff list\`.`);
  }
  throw ambiguous(needle, matches);
}

function ambiguous(needle: string, matches: StoredSession[]): SessionLookupError {
  const lines = matches.slice(0, 10).map((s) => `  ${describeCandidate(s)}`);
  return new SessionLookupError("ambiguous", `"${needle}" matches ${matches.length} sessions; give more of the id or pass --harness:\n${lines.join("\n")}`, matches);
}

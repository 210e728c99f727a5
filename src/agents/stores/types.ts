// The one shape every runtime's session store is read into. Readers are read-only: they never
// write, lock or migrate a runtime's files.

import type { NewestWindow } from "./newest.js";

export interface SessionCounts {
  prompts: number;
  replies: number;
  tools: number;
  /** True when the counts come from the head and tail of a large file only (listing never reads whole files). */
  approximate?: boolean;
}

export interface StoredSession {
  id: string;
  /** Runtime id as used by `--harness` / `--agent` (claude, codex, …). */
  runtime: string;
  title: string;
  /** Directory the session ran in, when the store records one. */
  cwd: string | null;
  branch?: string;
  /** ISO 8601. */
  lastActivity: string;
  /** The session's file (or the database file for SQLite stores). */
  file: string;
  counts: SessionCounts;
  /** Parent session id when this is a subagent's transcript. */
  subagentOf?: string;
  /**
   * What the runtime's CLI needs to reopen this session natively, and whether it can. `ref` is
   * the argument the CLI takes (an id, a session file, an OpenClaw session key); absent means the id.
   */
  native?: { ok: boolean; reason?: string; ref?: string };
  /** Reader-private locator (row ids, agent name, which store the record came from). */
  extra?: Record<string, string>;
}

export type StepKind = "prompt" | "reply" | "command" | "file_change" | "tool_failure" | "mcp";

/** One event of a session, as it goes into a brief. Reasoning and file reads are never emitted. */
export interface SessionStep {
  kind: StepKind;
  text: string;
  at?: string;
  /** Commands: the exit code where the runtime reports one. */
  exitCode?: number;
  /** File changes: the path. */
  path?: string;
}

export interface ReaderContext {
  /** The store location (default or overridden), in the seed's terms for this runtime. */
  dir: string;
  env: NodeJS.ProcessEnv;
  home: string;
  includeSubagents: boolean;
  /**
   * Set when only the newest sessions are wanted: readers that go through mapNewestFirst skip
   * files too old to be among them.
   */
  newest?: NewestWindow;
  /** Non-fatal problems (torn lines, unreadable files); the caller shows them as warnings. */
  warn(message: string): void;
}

/** A runtime's store as known without loading its reader. */
export interface StoreInfo {
  /** `--harness` name. */
  readonly runtime: string;
  readonly label: string;
  /** The default store location, honouring the runtime's own environment overrides. */
  defaultDir(env: NodeJS.ProcessEnv, home: string): string;
}

/** What a product's reader does (its store.ts); the registry adds the store it reads. */
export interface StoreReading {
  /** Every session in the store, in any order; subagents included only when asked. */
  list(ctx: ReaderContext): Promise<StoredSession[]>;
  /** Streams the session's steps, oldest first, to `emit`. May read the whole session. */
  readSteps(session: StoredSession, ctx: ReaderContext, emit: (step: SessionStep) => void): Promise<void>;
}

export interface StoreReader extends StoreInfo, StoreReading {}

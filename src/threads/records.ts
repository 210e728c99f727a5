// What the registry holds of a thread, and what a restart keeps of the log.
import type { SubagentRecord } from "../core/subagents/records.js";
import type { UsageTotals } from "./chat-state.js";

export type { AuditBody } from "./audit.js";

export interface ThreadRecord {
  id: string;
  workspace: string;
  agent: string;
  profile?: string;
  /** Current agent session id, once the agent created or resumed one. */
  session?: string;
  /** Every session id this thread has seen, oldest first. */
  sessions: string[];
  open: boolean;
  routes: Set<string>;
  createdAt: string;
  closedAt?: string;
  closeReason?: string;
  lastEventAt: string;
  contextTransfers: Array<{ fromRuntime: string; fromSession: string; briefPath: string }>;
  /** Prompts waiting for their turn, oldest first: kept across a restart and run after it. */
  queued: QueuedPromptRecord[];
  /** Subagents of its current multi-agent turn, and unfinished ones of earlier turns. */
  subagents: SubagentRecord[];
  /** The config binding (its match) that chose workspace and agent, when one did. */
  binding?: string;
  /** Mode and model chosen in chat (/mode, /model). */
  settings: { mode?: string; model?: string };
  usage: UsageTotals;
  /** Its own git worktree (workspaces.isolation: worktree); `removed` once /close took it away. */
  worktree?: ThreadWorktree;
}

export interface ThreadWorktree {
  path: string;
  branch: string;
  /** The commit it branched from. */
  base: string;
  /** The branch it came from, which /merge merges into. */
  baseBranch: string;
  /** The main checkout's top directory. */
  repository: string;
  /** Where its agent works. */
  cwd: string;
  /** The first line of the thread's first prompt (redacted, cut): /pr's default title. */
  topic?: string;
  removed?: boolean;
  branchDeleted?: boolean;
}

interface QueuedPromptRecord {
  id: string;
  /** ACP content blocks, as they were submitted. */
  prompt: unknown[];
  at: string;
}

/** What a restart keeps of closed threads and audit events; the log is compacted to that at start. */
export interface RegistryOptions {
  now?: () => Date;
  /** Closed threads are kept this long after closing (and at most `maxClosedKept` of them). */
  closedRetentionMs?: number;
  maxClosedKept?: number;
  auditRetentionMs?: number;
  /** Compact only when at least this many events can go (a rewrite is not worth less). */
  compactMinDropped?: number;
}

const DAY_MS = 86_400_000;
export const CLOSED_RETENTION_MS = 30 * DAY_MS;
export const MAX_CLOSED_KEPT = 1_000;
export const AUDIT_RETENTION_MS = 90 * DAY_MS;
export const COMPACT_MIN_DROPPED = 1_000;

export interface NewThread {
  workspace: string;
  agent: string;
  profile?: string;
  session?: string;
  origin?: string;
  binding?: string;
}

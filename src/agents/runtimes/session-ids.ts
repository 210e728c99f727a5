// What a session id of each runtime looks like. Ids are read from files (transcripts, the thread
// log) that anyone with write access to them can shape, and they end up as command-line arguments
// (`claude --resume <id>`): an id like `--dangerously-skip-permissions` must never get that far.

import { getProduct } from "../products/index.js";

/**
 * Our id for a runtime name, accepting the products' aliases (the seed's telemetry-style names).
 * Here, not with the launch commands, so listing sessions does not load those.
 */
export function canonicalRuntimeId(id: string): string {
  return getProduct(id)?.id ?? id;
}

/** An id no CLI reads as an option and no shell splits: a letter or digit first, then a safe run. */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._:@+=-]{0,255}$/;
/** A session file as a reference (Pi reopens a session by its file): an absolute path, one line. */
const SAFE_PATH = /^\/[^\0-\x1f]{1,4095}$/;

const GENERIC = { pattern: SAFE_ID, shape: "letters, digits and . _ : @ + = - (not starting with -)" };

/**
 * Whether `id` is a session id of `runtime`. A subagent's id follows its runtime's own naming for
 * subagents (Claude Code names them after their file), so it gets the generic rule.
 */
export function isValidSessionId(runtime: string, id: string, options: { subagent?: boolean } = {}): boolean {
  const format = options.subagent ? GENERIC : formatOf(runtime);
  return format.pattern.test(id);
}

/** What a valid id of this runtime looks like, for an error message. */
export function sessionIdShape(runtime: string): string {
  return formatOf(runtime).shape;
}

/** The product's own id format (its id exactly, not an alias), else the generic rule. */
function formatOf(runtime: string): { pattern: RegExp; shape: string } {
  const product = getProduct(runtime);
  return (product?.id === runtime ? product.sessionId : undefined) ?? GENERIC;
}

/** Whether a native reference (an id, an OpenClaw session key, a session file) is safe as an argument. */
export function isSafeSessionRef(ref: string): boolean {
  return SAFE_ID.test(ref) || SAFE_PATH.test(ref);
}

/** An id shown in an error: quoted, cut short, on one line. */
export function describeBadId(id: string): string {
  return JSON.stringify(id.length > 60 ? `${id.slice(0, 60)}…` : id);
}

// How much of an id a list shows. Eight characters tell most ids apart, but not Codex's UUIDv7
// ids: their first characters are a timestamp, so sessions started within about a minute share
// them. A list shows as many characters as it takes to tell its ids apart (kept here, not with the
// store readers, so the chat's /session loads no reader to format its list).
/** The fewest characters of an id a list shows. */
export const SHORT_ID_CHARS = 8;

/** Characters to show of each id so that no two listed ids look the same (at least SHORT_ID_CHARS). */
export function shortIdLength(ids: Iterable<string>, min = SHORT_ID_CHARS): number {
  const unique = [...new Set(ids)];
  const longest = Math.max(min, ...unique.map((id) => id.length));
  for (let n = min; n < longest; n++) {
    if (new Set(unique.map((id) => id.slice(0, n))).size === unique.length) return n;
  }
  return longest;
}

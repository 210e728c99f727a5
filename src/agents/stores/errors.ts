import { BatonError } from "../../kernel/errors.js";
import type { StoredSession } from "./types.js";

/** Shortest id prefix accepted, so a short typo cannot pick someone's session by chance. */
export const MIN_PREFIX_CHARS = 6;

/** A session id or prefix that matched nothing, or more than one session. */
export class SessionLookupError extends BatonError {
  readonly reason: "not_found" | "ambiguous" | "too_short";
  readonly candidates: StoredSession[];
  constructor(reason: "not_found" | "ambiguous" | "too_short", userMessage: string, candidates: StoredSession[] = []) {
    super(userMessage);
    this.reason = reason;
    this.candidates = candidates;
  }
}

/** A store could not be read at all (missing database engine, unreadable directory). */
export class StoreReadError extends BatonError {}

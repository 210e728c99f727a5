// What Baton sends to Matrix, as event contents: `m.text` (or `m.notice` for progress and notices,
// which clients show quieter and bots ignore) with an HTML `formatted_body` and the markdown as the
// plain `body`; threads by an `m.thread` relation; streaming edits as `m.replace` with
// `m.new_content`; approval choices as reactions. And homeserver errors as PlatformErrors.
import { PlatformError } from "../../kernel/errors.js";

export const HTML_FORMAT = "org.matrix.custom.html";

export interface RenderedMessage {
  /** Plain text for clients without HTML (the markdown source reads well as text). */
  body: string;
  html?: string;
  /** A quiet message (progress, tool lines, notices). */
  notice?: boolean;
}

function baseContent(message: RenderedMessage): Record<string, unknown> {
  return {
    msgtype: message.notice ? "m.notice" : "m.text",
    body: message.body,
    ...(message.html !== undefined ? { format: HTML_FORMAT, formatted_body: message.html } : {}),
    // Baton's messages mention nobody: no pings from agent output quoting a user id.
    "m.mentions": {},
  };
}

export function messageContent(message: RenderedMessage, threadRoot?: string, lastInThread?: string): Record<string, unknown> {
  const content = baseContent(message);
  if (threadRoot) content["m.relates_to"] = { rel_type: "m.thread", event_id: threadRoot, is_falling_back: true, "m.in_reply_to": { event_id: lastInThread ?? threadRoot } };
  return content;
}

/** An edit: clients without edit support show the `* `-prefixed fallback. */
export function editContent(eventId: string, message: RenderedMessage): Record<string, unknown> {
  const replacement = baseContent(message);
  const fallback = baseContent({ ...message, body: `* ${message.body}`, html: message.html === undefined ? undefined : `* ${message.html}` });
  return { ...fallback, "m.new_content": replacement, "m.relates_to": { rel_type: "m.replace", event_id: eventId } };
}

export function reactionContent(eventId: string, key: string): Record<string, unknown> {
  return { "m.relates_to": { rel_type: "m.annotation", event_id: eventId, key } };
}

interface SdkErrorShape {
  httpStatus?: number;
  errcode?: string;
  data?: { retry_after_ms?: number; error?: string };
  name?: string;
  message?: string;
}

/** A failed SDK call as a PlatformError: 429 with its wait, 5xx unavailable, other answers refused, no answer network. */
export function toPlatformError(error: unknown, what: string): PlatformError {
  if (error instanceof PlatformError) return error;
  const e = (error ?? {}) as SdkErrorShape;
  const status = e.httpStatus;
  const detail = `${what}: ${e.errcode ?? e.name ?? "error"} ${e.data?.error ?? e.message ?? ""}`.trim();
  if (status === 429 || e.errcode === "M_LIMIT_EXCEEDED") {
    return new PlatformError(`Matrix is rate-limiting Baton (${what}).`, { reason: "refused", retryAfterMs: e.data?.retry_after_ms ?? 1000, detail, cause: error });
  }
  if (status === undefined) return new PlatformError(`The Matrix homeserver could not be reached (${what}).`, { reason: "network", detail, cause: error });
  return new PlatformError(`The Matrix homeserver refused to ${what} (${status} ${e.errcode ?? ""}).`.replace(" )", ")"), { reason: status >= 500 ? "network" : "refused", detail, cause: error });
}

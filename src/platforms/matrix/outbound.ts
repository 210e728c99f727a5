// What Baton sends to Matrix, as event contents: `m.text` (or `m.notice` for progress and notices,
// which clients show quieter and other bots ignore) with the markdown as the plain `body` and, unless
// the core asked for plain text, an HTML `formatted_body` from the shared sanitising renderer;
// threads by an `m.thread` relation; streaming edits as `m.replace` with `m.new_content`; approval
// choices as reactions. An event must stay under the homeserver's 64 KiB, encrypted (base64 makes
// it a third larger): content over MAX_CONTENT_BYTES is refused here, before the homeserver would.
import { FormattingError, PlatformError } from "../../kernel/errors.js";
import type { OutboundMessage } from "../contract.js";
import { markdownToHtml } from "../../render/html.js";

const HTML_FORMAT = "org.matrix.custom.html";
/** 64 KiB per event, less a third for the encryption's base64 and room for the envelope. */
const MAX_CONTENT_BYTES = 40_000;
const QUIET_KINDS: ReadonlySet<string> = new Set(["tool", "thought", "plan", "notice"]);
/** An empty block still needs a visible placeholder. */
const EMPTY_TEXT_PLACEHOLDER = "…";

export interface RenderedMessage {
  /** Plain text for clients without HTML and for notifications (the markdown reads well as text). */
  body: string;
  html?: string;
  /** A quiet message (progress, tool lines, notices). */
  notice: boolean;
}

/** The core's message (plus the approval legend, if any) as body and HTML. */
export function renderMessage(message: OutboundMessage, legend?: string): RenderedMessage {
  const text = message.text.trim() === "" ? EMPTY_TEXT_PLACEHOLDER : message.text;
  const body = legend ? `${text}\n\n${legend}` : text;
  const html = message.format === "plain" ? undefined : markdownToHtml(body, { profile: "matrix" });
  return { body, html, notice: message.kind !== undefined && QUIET_KINDS.has(message.kind) };
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

export function messageContent(message: RenderedMessage, threadRoot?: string): Record<string, unknown> {
  const content = baseContent(message);
  // Clients without threads show it as a reply to the thread's root.
  if (threadRoot) content["m.relates_to"] = { rel_type: "m.thread", event_id: threadRoot, is_falling_back: true, "m.in_reply_to": { event_id: threadRoot } };
  return checkedSize(content, message);
}

/** An edit. Clients without edits show the `* ` fallback, kept plain so the event stays small. */
export function editContent(eventId: string, message: RenderedMessage): Record<string, unknown> {
  const content = { ...baseContent({ body: `* ${message.body}`, notice: message.notice }), "m.new_content": baseContent(message), "m.relates_to": { rel_type: "m.replace", event_id: eventId } };
  return checkedSize(content, message);
}

export function reactionContent(eventId: string, key: string): Record<string, unknown> {
  return { "m.relates_to": { rel_type: "m.annotation", event_id: eventId, key } };
}

function checkedSize(content: Record<string, unknown>, message: RenderedMessage): Record<string, unknown> {
  const bytes = Buffer.byteLength(JSON.stringify(content));
  if (bytes <= MAX_CONTENT_BYTES) return content;
  const detail = `event content of ${bytes} bytes, more than ${MAX_CONTENT_BYTES}`;
  // Without its HTML copy the same words fit: the core resends them plain.
  if (message.html !== undefined) throw new FormattingError("The formatted message is too large for Matrix.", { detail });
  throw new PlatformError("The message is too large for Matrix.", { reason: "refused", detail });
}

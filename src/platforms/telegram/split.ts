// Splitting a markdown text into pieces that each fit one Telegram message. The core already splits
// at `capabilities.maxMessageLength` markdown characters; this is the adapter's guard for the rare
// text whose rendering is still too long (tables padded into columns), and for plain text.
// A code fence cut in two is closed at the end of one piece and reopened at the start of the next.
import { markdownToTelegramHtml, visibleLength } from "./markdown.js";

/** Telegram's limit: characters of a message's text after entity parsing. */
export const TELEGRAM_MAX_TEXT_CHARS = 4096;

/** A bound on the markup itself, so a text full of `<` (4× growth as `&lt;`) stays a sane request. */
const MAX_HTML_CHARS = 4 * TELEGRAM_MAX_TEXT_CHARS;

const FENCE_PATTERN = /^ {0,3}(`{3,}|~{3,})(.*)$/;

export interface RenderedPiece {
  /** The markdown this piece came from; sent as is when Telegram rejects the HTML. */
  markdown: string;
  html: string;
}

/** Splits `text` into pieces of at most `maxChars`, at paragraph breaks, else line breaks, else anywhere. */
export function splitMarkdown(text: string, maxChars: number): string[] {
  if (text.length <= maxChars) return [text];
  // Every line with the fence that is open after it, so a cut anywhere knows what to close/reopen.
  const lines: Array<{ text: string; fenceAfter?: OpenFence }> = [];
  let fence: OpenFence | undefined;
  for (const rawLine of text.split("\n")) {
    for (const line of hardWrap(rawLine, Math.max(1, maxChars - FENCE_RESERVE_CHARS))) {
      fence = trackFence(line, fence);
      lines.push({ text: line, fenceAfter: fence });
    }
  }

  const pieces: string[] = [];
  let start = 0;
  while (start < lines.length) {
    const reopen = start > 0 ? lines[start - 1].fenceAfter?.line : undefined;
    let length = reopen ? reopen.length + 1 : 0;
    let end = start;
    while (end < lines.length) {
      const closing = lines[end].fenceAfter ? lines[end].fenceAfter!.marker.length + 1 : 0;
      const next = length + (end > start ? 1 : 0) + lines[end].text.length;
      if (next + closing > maxChars && end > start) break;
      length = next;
      end++;
    }
    if (end < lines.length) end = preferParagraphBreak(lines, start, end);
    const body = lines.slice(start, end).map((line) => line.text);
    const close = end < lines.length ? lines[end - 1].fenceAfter?.marker : undefined;
    pieces.push([...(reopen ? [reopen] : []), ...body, ...(close ? [close] : [])].join("\n"));
    start = end;
  }
  return pieces.map((piece) => piece.replace(/^\n+|\n+$/g, "")).filter((piece) => piece.trim().length > 0);
}

interface OpenFence {
  marker: string;
  line: string;
}

/** Room kept in every piece for a reopened fence line and a closing marker. */
const FENCE_RESERVE_CHARS = 80;

/** Moves a cut back to just after a blank line outside code, if that keeps the piece at least half full. */
function preferParagraphBreak(lines: Array<{ text: string; fenceAfter?: OpenFence }>, start: number, end: number): number {
  for (let i = end; i > start + (end - start) / 2; i--) {
    if (lines[i - 1].text.trim() === "" && !lines[i - 1].fenceAfter) return i;
  }
  return end;
}

function hardWrap(line: string, width: number): string[] {
  const parts: string[] = [];
  let rest = line;
  while (rest.length > width) {
    const cut = safeCut(rest, width);
    parts.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  parts.push(rest);
  return parts;
}

/** Moves a cut off the middle of a surrogate pair, so an emoji is never split in two. */
function safeCut(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return code >= 0xdc00 && code <= 0xdfff && at > 1 ? at - 1 : at;
}


function trackFence(line: string, open: OpenFence | undefined): OpenFence | undefined {
  const match = FENCE_PATTERN.exec(line);
  if (!match) return open;
  const marker = match[1];
  if (!open) return { marker, line: line.trim() };
  // A closing fence uses the same character, at least as long, with no info string.
  if (marker[0] === open.marker[0] && marker.length >= open.marker.length && match[2].trim() === "") return undefined;
  return open;
}

/** Renders markdown to pieces whose visible text fits one message, splitting further where needed. */
export function renderForTelegram(markdown: string, maxChars = TELEGRAM_MAX_TEXT_CHARS): RenderedPiece[] {
  const html = markdownToTelegramHtml(markdown);
  // The markdown must fit too: it is what goes out as plain text if Telegram rejects the HTML.
  if (markdown.length <= maxChars && visibleLength(html) <= maxChars && html.length <= MAX_HTML_CHARS) return [{ markdown, html }];
  const target = Math.max(64, Math.min(maxChars, Math.floor(markdown.length / 2) + 1));
  const pieces = splitMarkdown(markdown, target);
  if (pieces.length === 1) {
    // Cannot split further: send it as plain text pieces, which always fit.
    return splitPlain(markdown, maxChars).map((text) => ({ markdown: text, html: "" }));
  }
  return pieces.flatMap((piece) => renderForTelegram(piece, maxChars));
}

/** Plain text split to the limit on line boundaries where possible. */
export function splitPlain(text: string, maxChars = TELEGRAM_MAX_TEXT_CHARS): string[] {
  if (text.length <= maxChars) return [text];
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > maxChars) {
    let cut = rest.lastIndexOf("\n", maxChars);
    if (cut < maxChars / 2) cut = safeCut(rest, maxChars);
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut).replace(/^\n/, "");
  }
  if (rest.length > 0) pieces.push(rest);
  return pieces;
}

// Splitting a markdown text into pieces that each fit one Telegram message. The core already splits
// at `capabilities.maxMessageLength` markdown characters; this is the adapter's guard for the rare
// text whose rendering is still too long (tables padded into columns), and for plain text.
// A code fence cut in two is closed at the end of one piece and reopened at the start of the next.
import { markdownToTelegramHtml, visibleLength } from "./markdown.js";
import { safeCut, splitMarkdown } from "../../render/split.js";

export { splitMarkdown };

/** Telegram's limit: characters of a message's text after entity parsing. */
export const TELEGRAM_MAX_TEXT_CHARS = 4096;

/** A bound on the markup itself, so a text full of `<` (4× growth as `&lt;`) stays a sane request. */
const MAX_HTML_CHARS = 4 * TELEGRAM_MAX_TEXT_CHARS;


export interface RenderedPiece {
  /** The markdown this piece came from; sent as is when Telegram rejects the HTML. */
  markdown: string;
  html: string;
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

// Splits markdown into pieces no longer than a platform's limit: at paragraph breaks, else line
// breaks, else anywhere (never inside a surrogate pair). A code fence cut in two is closed at the
// end of one piece and reopened, with its info string, at the start of the next, so every piece
// renders on its own.

const FENCE_PATTERN = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** Room kept in every piece for a reopened fence line and a closing marker. */
const FENCE_RESERVE_CHARS = 80;

export interface OpenFence {
  marker: string;
  line: string;
}

interface Line {
  text: string;
  /** Offset of the line's first character in the source text. */
  at: number;
  /** The fence still open after this line, if any. */
  fenceAfter?: OpenFence;
  /** A continuation of a line that was too long: joins the previous one with no newline. */
  continuation: boolean;
}

/** One piece of a split, with where it ends in the source and the fence left open there. */
export interface SplitPiece {
  text: string;
  /** Offset in the source text where the next piece starts. */
  end: number;
  fenceAfter?: OpenFence;
}

export function splitMarkdown(text: string, maxChars: number): string[] {
  if (text.length <= maxChars) return [text];
  return splitMarkdownPieces(text, maxChars).map((piece) => piece.text);
}

/**
 * Splits like splitMarkdown, and says where each piece ends in the source. `openFence` continues
 * a split that stopped inside a code fence (the first piece reopens it). Pieces before the last
 * never change when more text is appended, so a stream may seal them and drop their source.
 */
export function splitMarkdownPieces(text: string, maxChars: number, openFence?: OpenFence): SplitPiece[] {
  if (maxChars < FENCE_RESERVE_CHARS / 2) throw new Error(`split limit too small: ${maxChars}`);
  // A stream splits its unsent text at every flush, and mostly that text fits with room to spare.
  if (!openFence && text.length + FENCE_RESERVE_CHARS <= maxChars) {
    const whole = wholePiece(text);
    if (whole) return whole;
  }
  const lines: Line[] = [];
  let fence = openFence;
  let at = 0;
  for (const rawLine of text.split("\n")) {
    let partAt = at;
    hardWrap(rawLine, Math.max(1, maxChars - FENCE_RESERVE_CHARS)).forEach((part, i) => {
      if (i === 0) fence = trackFence(part, fence);
      lines.push({ text: part, at: partAt, fenceAfter: fence, continuation: i > 0 });
      partAt += part.length;
    });
    at += rawLine.length + 1;
  }

  const pieces: SplitPiece[] = [];
  let start = 0;
  while (start < lines.length) {
    const reopen = start > 0 ? lines[start - 1].fenceAfter?.line : openFence?.line;
    let length = reopen ? reopen.length + 1 : 0;
    let end = start;
    while (end < lines.length) {
      const line = lines[end];
      const closing = line.fenceAfter ? line.fenceAfter.marker.length + 1 : 0;
      const next = length + (end > start && !line.continuation ? 1 : 0) + line.text.length;
      if (next + closing > maxChars && end > start) break;
      length = next;
      end++;
    }
    if (end < lines.length) end = preferParagraphBreak(lines, start, end);
    let body = "";
    for (let i = start; i < end; i++) body += (i > start && !lines[i].continuation ? "\n" : "") + lines[i].text;
    const close = end < lines.length ? lines[end - 1].fenceAfter?.marker : undefined;
    const piece = [...(reopen ? [reopen] : []), body, ...(close ? [close] : [])].join("\n").replace(/^\n+|\n+$/g, "");
    const sourceEnd = end < lines.length ? lines[end].at : text.length;
    if (piece.trim().length > 0) pieces.push({ text: piece, end: sourceEnd, fenceAfter: lines[end - 1].fenceAfter });
    else if (pieces.length > 0) pieces[pieces.length - 1].end = sourceEnd;
    start = end;
  }
  return pieces;
}

/**
 * The text as its one piece, as the line-by-line split below would make it when nothing can be cut
 * (every line and a closing fence fit with room to spare); undefined for a fence marker too long
 * for that room.
 */
function wholePiece(text: string): SplitPiece[] | undefined {
  let fence: OpenFence | undefined;
  if (text.includes("```") || text.includes("~~~")) {
    for (const line of text.split("\n")) {
      fence = trackFence(line, fence);
      if (fence && fence.marker.length >= FENCE_RESERVE_CHARS) return undefined;
    }
  }
  const piece = text.replace(/^\n+|\n+$/g, "");
  return piece.trim().length > 0 ? [{ text: piece, end: text.length, fenceAfter: fence }] : [];
}

/** Moves a cut back to just after a blank line outside code, if that keeps the piece at least half full. */
function preferParagraphBreak(lines: Line[], start: number, end: number): number {
  for (let i = end; i > start + (end - start) / 2; i--) {
    if (lines[i - 1].text.trim() === "" && !lines[i - 1].fenceAfter && !lines[i]?.continuation) return i;
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

// Splits markdown into pieces no longer than a platform's limit: at paragraph breaks, else line
// breaks, else anywhere (never inside a surrogate pair). A code fence cut in two is closed at the
// end of one piece and reopened, with its info string, at the start of the next, so every piece
// renders on its own. Shared by the core's streaming and the adapters' own guards.

const FENCE_PATTERN = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** Room kept in every piece for a reopened fence line and a closing marker. */
const FENCE_RESERVE_CHARS = 80;

interface OpenFence {
  marker: string;
  line: string;
}

interface Line {
  text: string;
  /** The fence still open after this line, if any. */
  fenceAfter?: OpenFence;
  /** A continuation of a line that was too long: joins the previous one with no newline. */
  continuation: boolean;
}

export function splitMarkdown(text: string, maxChars: number): string[] {
  if (maxChars < FENCE_RESERVE_CHARS / 2) throw new Error(`split limit too small: ${maxChars}`);
  if (text.length <= maxChars) return [text];
  const lines: Line[] = [];
  let fence: OpenFence | undefined;
  for (const rawLine of text.split("\n")) {
    hardWrap(rawLine, Math.max(1, maxChars - FENCE_RESERVE_CHARS)).forEach((part, i) => {
      if (i === 0) fence = trackFence(part, fence);
      lines.push({ text: part, fenceAfter: fence, continuation: i > 0 });
    });
  }

  const pieces: string[] = [];
  let start = 0;
  while (start < lines.length) {
    const reopen = start > 0 ? lines[start - 1].fenceAfter?.line : undefined;
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
    pieces.push([...(reopen ? [reopen] : []), body, ...(close ? [close] : [])].join("\n"));
    start = end;
  }
  return pieces.map((piece) => piece.replace(/^\n+|\n+$/g, "")).filter((piece) => piece.trim().length > 0);
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
export function safeCut(text: string, at: number): number {
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

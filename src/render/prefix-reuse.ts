// A streamed answer is rendered again at every edit, each time with more text at its end: parsing
// the whole message again at each edit was most of Baton's CPU while answers streamed (and most of
// its garbage). Markdown's blocks close for good: once a top-level block is followed by a blank line
// and a complete line that starts the next block, text appended later cannot change it. So the
// blocks before that point are taken from an earlier parse and only the rest is parsed.
//
// The one exception in CommonMark is link reference (and GFM footnote) definitions, which reach
// across the whole document: a text with any definition is parsed whole. Positions in the reused
// result are those of a full parse (the test compares whole trees, positions included).
import type { Root, RootContent } from "mdast";

export interface Parsed {
  tree: Root;
  /** True when the text defines a link reference or a footnote (then nothing is reused). */
  hasDefinitions: boolean;
}

/** What an earlier parse leaves for the next: the closed blocks and the text that proves them closed. */
interface Reusable {
  /** The text from the start through the first line of the first block that is not reused. */
  anchor: string;
  /** Where the not-reused text starts (the start of that line). */
  stableEnd: number;
  /** Line breaks before `stableEnd`. */
  stableLines: number;
  stable: RootContent[];
}

/** Earlier parses kept: one per streaming message is enough, for many answers streaming at once. */
const REUSABLE_ENTRIES = 128;
/** Texts longer than this are parsed whole and not kept. */
const MAX_REUSABLE_CHARS = 64 * 1024;
/** The kept texts together (their trees are some ten times their size): the least recently used go first. */
const MAX_KEPT_CHARS = 512 * 1024;

export class PrefixReuse {
  /** Most recently used first. */
  private entries: Reusable[] = [];

  constructor(private readonly parseWhole: (markdown: string) => Parsed) {}

  parse(markdown: string): Parsed {
    if (markdown.length > MAX_REUSABLE_CHARS) return this.parseWhole(markdown);
    const index = this.findEntry(markdown);
    const entry = index >= 0 ? this.entries[index] : undefined;
    let parsed: Parsed;
    if (entry) {
      const rest = this.parseWhole(markdown.slice(entry.stableEnd));
      // A definition in the new text may change how the reused blocks read: parse it all.
      parsed = rest.hasDefinitions ? this.parseWhole(markdown) : { tree: join(entry, rest.tree), hasDefinitions: false };
    } else parsed = this.parseWhole(markdown);
    if (index >= 0) this.entries.splice(index, 1);
    if (!parsed.hasDefinitions) {
      const next = reusableOf(markdown, parsed.tree);
      if (next) this.entries.unshift(next);
      else if (entry) this.entries.unshift(entry);
      this.trim();
    }
    return parsed;
  }

  private trim(): void {
    let kept = 0;
    for (let i = 0; i < this.entries.length; i++) {
      kept += this.entries[i].anchor.length;
      if (i >= REUSABLE_ENTRIES || kept > MAX_KEPT_CHARS) {
        this.entries.length = i;
        return;
      }
    }
  }

  private findEntry(markdown: string): number {
    let best = -1;
    for (let i = 0; i < this.entries.length; i++) {
      const entry = this.entries[i];
      if ((best < 0 || entry.stableEnd > this.entries[best].stableEnd) && markdown.startsWith(entry.anchor)) best = i;
    }
    return best;
  }
}

/** The reused blocks, then the new ones with their positions moved to where they are in the whole text. */
function join(entry: Reusable, rest: Root): Root {
  shift(rest, entry.stableEnd, entry.stableLines);
  return { type: "root", children: [...entry.stable, ...rest.children], position: rest.position && { start: { line: 1, column: 1, offset: 0 }, end: rest.position.end } };
}

function shift(node: { position?: Root["position"]; children?: unknown[] }, offset: number, lines: number): void {
  if (node.position) {
    const { start, end } = node.position;
    node.position = {
      start: { line: start.line + lines, column: start.column, offset: (start.offset ?? 0) + offset },
      end: { line: end.line + lines, column: end.column, offset: (end.offset ?? 0) + offset },
    };
  }
  if (node.children) for (const child of node.children) shift(child as typeof node, offset, lines);
}

/**
 * The last top-level block that is closed for good: followed by a blank line, then by a block whose
 * first line is complete (so the next text cannot turn that line into a continuation).
 */
function reusableOf(markdown: string, tree: Root): Reusable | undefined {
  // A carriage return is a line ending of its own to markdown; such rare texts are parsed whole.
  if (markdown.includes("\r")) return undefined;
  const children = tree.children;
  for (let next = children.length - 1; next >= 1; next--) {
    const startOffset = children[next].position?.start.offset;
    const previousEnd = children[next - 1].position?.end.offset;
    if (startOffset === undefined || previousEnd === undefined) return undefined;
    const lineStart = markdown.lastIndexOf("\n", startOffset - 1) + 1;
    const lineEnd = markdown.indexOf("\n", startOffset);
    if (lineEnd < 0) continue;
    if (!/\n[ \t]*\n/.test(markdown.slice(previousEnd, lineStart + 1))) continue;
    return { anchor: markdown.slice(0, lineEnd + 1), stableEnd: lineStart, stableLines: countLines(markdown, lineStart), stable: children.slice(0, next) };
  }
  return undefined;
}

function countLines(text: string, end: number): number {
  let lines = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < end; i = text.indexOf("\n", i + 1)) lines++;
  return lines;
}

// YAML mistakes in plain words, on the line of the mistake itself. The yaml library reports where
// its parser gave up, in its own terms ("Implicit keys need to be on a single line", "Nested
// mappings are not allowed in compact mappings") and often on the line above or below the mistake
// (an unclosed quote is found at the end of the file). This names what is wrong and where to look.
import type { LineCounter, YAMLError } from "yaml";

export interface YamlProblem {
  /** 1-based line of the mistake. */
  line: number;
  /** What is wrong, in words, with the line's own text. */
  message: string;
}

const indentOf = (line: string) => line.length - line.trimStart().length;
const isContent = (line: string) => line.trim() !== "" && !line.trimStart().startsWith("#");
/** The line's text for a message (trimmed, shortened). */
const shown = (line: string) => {
  const text = line.trim();
  return `\`${text.length > 60 ? `${text.slice(0, 57)}…` : text}\``;
};
const spaces = (n: number) => `${n} space${n === 1 ? "" : "s"}`;

/** A `key:` at the start of the line (outside quotes), or undefined. */
function keyOf(line: string): string | undefined {
  return /^\s*(?:-\s+)?([^\s:#"'{}[\],][^:#]*?|"[^"]*"|'[^']*')\s*:(?:\s|$)/.exec(line)?.[1];
}

/** The last line at or before `from` where `open` is left unclosed on its own line. */
function unclosedAt(lines: string[], from: number, open: string, close: string): number | undefined {
  for (let i = Math.min(from, lines.length - 1); i >= 0; i--) {
    const text = lines[i].replace(/"[^"]*"|'[^']*'/g, "");
    if (text.split(open).length > text.split(close).length) return i;
  }
  return undefined;
}

/** The last line at or before `from` with an odd number of `quote` characters. */
function unclosedQuoteAt(lines: string[], from: number, quote: string): number | undefined {
  for (let i = Math.min(from, lines.length - 1); i >= 0; i--) if ((lines[i].split(quote).length - 1) % 2 === 1) return i;
  return undefined;
}

/** The nearest content line above `index` that is less indented (the section it is in), if any. */
function parentOf(lines: string[], index: number): number | undefined {
  for (let i = index - 1; i >= 0; i--) if (isContent(lines[i]) && indentOf(lines[i]) < indentOf(lines[index])) return i;
  return undefined;
}

function badIndent(lines: string[], at: number): YamlProblem {
  const line = lines[at];
  const above: string[] = [];
  const seen = new Set<number>();
  for (let i = at - 1; i >= 0 && above.length < 2; i--) {
    const indent = indentOf(lines[i]);
    if (!isContent(lines[i]) || seen.has(indent) || !keyOf(lines[i])) continue;
    seen.add(indent);
    above.push(`${indent} (\`${keyOf(lines[i])}\`)`);
  }
  const options = above.length > 0 ? `: the keys above it are at ${above.join(" or ")}` : "";
  return { line: at + 1, message: `${shown(line)} is indented ${spaces(indentOf(line))}${options}. Line it up with the keys of the section it belongs to (spaces, not tabs).` };
}

export function describeYamlError(error: YAMLError, text: string, counter: LineCounter): YamlProblem {
  const lines = text.split("\n");
  const start = counter.linePos(error.pos[0]).line - 1;
  const end = counter.linePos(Math.max(error.pos[0], error.pos[1] - 1)).line - 1;
  const here = lines[start] ?? "";
  const first = error.message.split("\n")[0];
  switch (error.code) {
    case "TAB_AS_INDENT":
      return { line: start + 1, message: `${shown(here)} is indented with a tab: YAML indents with spaces only.` };
    case "DUPLICATE_KEY": {
      const key = keyOf(here) ?? here.trim();
      const earlier = lines.slice(0, start).findLastIndex((l) => indentOf(l) === indentOf(here) && keyOf(l) === key);
      return { line: start + 1, message: `\`${key}\` appears twice in the same section${earlier >= 0 ? ` (first on line ${earlier + 1})` : ""}: keep one, with the settings of both under it.` };
    }
    case "MISSING_CHAR": {
      const quote = /quote/.test(first) ? (first.includes("'") ? "'" : '"') : undefined;
      const at = quote ? unclosedQuoteAt(lines, start, quote) : undefined;
      if (at !== undefined) return { line: at + 1, message: `${shown(lines[at])}: the quote ${quote} opened on this line is not closed.` };
      break;
    }
    case "BAD_INDENT": {
      const bracket = /end with a \]/.test(first) ? ["[", "]"] : /end with a \}/.test(first) ? ["{", "}"] : undefined;
      const at = bracket ? unclosedAt(lines, start, bracket[0], bracket[1]) : undefined;
      if (bracket && at !== undefined)
        return { line: at + 1, message: `${shown(lines[at])}: the ${bracket[0] === "[" ? "list" : "map"} opened with ${bracket[0]} on this line is not closed with ${bracket[1]}.` };
      if (!bracket) return badIndent(lines, start);
      break;
    }
    case "BLOCK_AS_IMPLICIT_KEY":
    case "MULTILINE_IMPLICIT_KEY": {
      if (here.trimStart().startsWith("-"))
        return { line: start + 1, message: `${shown(here)} is a list item among the keys of a section: a list goes under a key of its own (\`key:\`, then \`- item\` lines indented under it).` };
      if (!keyOf(here)) return { line: start + 1, message: `${shown(here)} has no colon after its key: write \`key: value\`.` };
      const next = lines.findIndex((l, i) => i > start && isContent(l));
      const deeper = next > start && next <= Math.max(end, start + 1) && indentOf(lines[next]) > indentOf(here) ? next : undefined;
      if (deeper !== undefined) {
        return {
          line: deeper + 1,
          message: `${shown(lines[deeper])} is indented under \`${keyOf(here)}\`, which already has a value on line ${start + 1}. Indent it as \`${keyOf(here)}\` is (${spaces(indentOf(here))}), or give \`${keyOf(here)}\` no value on its own line.`,
        };
      }
      break;
    }
  }
  const parent = parentOf(lines, start);
  const context = parent !== undefined && keyOf(lines[parent]) ? ` (in \`${keyOf(lines[parent])}\`)` : "";
  return { line: start + 1, message: `${shown(here)}${context}: the YAML does not parse here (${first}).` };
}

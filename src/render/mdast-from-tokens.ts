// markdown-it's token stream nested into the mdast tree the renderers walk. markdown-it has done the
// reading (escapes and entities decoded, link references resolved, code indentation removed); this
// only builds the nodes. Top-level blocks carry their positions (prefix reuse needs them); nested
// and inline nodes carry none (no renderer reads them).
import type { Token } from "markdown-it";
import type { AlignType, List, ListItem, Nodes, Parents, Root, Table } from "mdast";
import type { Point } from "unist";

/** Any node with children, while it is being filled (the renderers get the mdast types back). */
interface Parent {
  type: Parents["type"];
  children: Nodes[];
}

/** What GFM links without markup: `http(s)://…`, `www.…` (made `http://`), and plain e-mail addresses. */
const GFM_LITERAL = /^(?:https?:\/\/|mailto:[\w.+-]+@[\w-]+(?:\.[\w-]+)+$)/i;

const TASK_MARKER = /^\[[ xX]\]/;
const TASK_MARKER_LENGTH = "[ ]".length;

/** Decodes backslash escapes and entity references (markdown-it's `utils.unescapeAll`). */
type Unescape = (text: string) => string;

export function mdastFromTokens(tokens: Token[], text: string, unescapeText: Unescape): Root {
  const starts = lineStarts(text);
  const root: Root = { type: "root", children: [], position: { start: { line: 1, column: 1, offset: 0 }, end: pointAt(starts, text.length) } };
  const stack: Parent[] = [root as unknown as Parent];
  for (const token of tokens) {
    const parent = stack[stack.length - 1];
    if (token.type === "inline") {
      appendInline(parent, token.children ?? []);
      continue;
    }
    if (token.nesting === -1) {
      const closed = stack.pop()!;
      if (closed.type === "listItem") takeTaskMarker(closed as unknown as ListItem);
      continue;
    }
    const node = blockNode(token, unescapeText);
    // A token that only groups (a table's head and body, the footnotes' section) keeps its parent.
    if (!node) {
      if (token.nesting === 1) stack.push(parent);
      continue;
    }
    // markdown-it hides the paragraphs of a tight list: a shown one makes its list loose.
    if (token.type === "paragraph_open" && !token.hidden && parent.type === "listItem") (stack[stack.length - 2] as unknown as List).spread = true;
    if (token.type === "th_open") (stack.findLast((open) => open.type === "table") as unknown as Table).align!.push(alignOf(token));
    if (stack.length === 1 && token.map) node.position = { start: pointAt(starts, starts[token.map[0]]), end: pointAt(starts, blockEnd(text, starts, token.map[0], token.map[1])) };
    parent.children.push(node);
    if (token.nesting === 1) stack.push(node as unknown as Parent);
  }
  return root;
}

function blockNode(token: Token, unescapeText: Unescape): Nodes | undefined {
  switch (token.type) {
    case "paragraph_open":
      return { type: "paragraph", children: [] };
    case "heading_open":
      return { type: "heading", depth: Number(token.tag.slice(1)) as 1 | 2 | 3 | 4 | 5 | 6, children: [] };
    case "blockquote_open":
      return { type: "blockquote", children: [] };
    case "bullet_list_open":
    case "ordered_list_open":
      return { type: "list", ordered: token.type === "ordered_list_open", start: token.type === "ordered_list_open" ? Number(token.attrGet("start") ?? 1) : null, spread: false, children: [] };
    case "list_item_open":
      return { type: "listItem", spread: false, checked: null, children: [] };
    case "fence": {
      // The info string: its first word is the language, the rest (as written) its meta.
      const [, lang, meta] = /^[ \t]*(\S*)[ \t]*([\s\S]*)$/.exec(unescapeText(token.info))!;
      return { type: "code", lang: lang || null, meta: meta || null, value: withoutFinalNewline(token.content) };
    }
    case "code_block":
      return { type: "code", lang: null, meta: null, value: withoutFinalNewline(token.content) };
    case "html_block":
      return { type: "html", value: token.content.replace(/\n+$/, "") };
    case "hr":
      return { type: "thematicBreak" };
    case "table_open":
      return { type: "table", align: [], children: [] };
    case "tr_open":
      return { type: "tableRow", children: [] };
    case "th_open":
    case "td_open":
      return { type: "tableCell", children: [] };
    case "footnote_open":
      return { type: "footnoteDefinition", identifier: identifierOf(labelOf(token)), label: labelOf(token), children: [] };
    default:
      return undefined;
  }
}

/** Appends a paragraph's (or heading's, or cell's) inline tokens, nesting emphasis, links and the like. */
function appendInline(block: Parent, tokens: Token[]): void {
  const stack: Parent[] = [block];
  for (const token of tokens) {
    const parent = stack[stack.length - 1];
    switch (token.type) {
      case "text":
        appendText(parent, token.content);
        break;
      case "softbreak":
        appendText(parent, "\n");
        break;
      case "hardbreak":
        parent.children.push({ type: "break" });
        break;
      case "code_inline":
        parent.children.push({ type: "inlineCode", value: token.content });
        break;
      case "html_inline":
        parent.children.push({ type: "html", value: token.content });
        break;
      case "image":
        parent.children.push({ type: "image", url: attribute(token, "src") ?? "", title: attribute(token, "title"), alt: plainText(token.children ?? []) });
        break;
      case "footnote_ref":
        parent.children.push({ type: "footnoteReference", identifier: identifierOf(labelOf(token)), label: labelOf(token) });
        break;
      case "link_open":
      case "em_open":
      case "strong_open":
      case "s_open": {
        // A literal address that GFM would not take for one stays text (linkify-it reads `a!b@c` as an address).
        if (token.type === "link_open" && token.markup === "linkify" && !GFM_LITERAL.test(attribute(token, "href") ?? "")) {
          stack.push(parent);
          break;
        }
        const node = inlineParent(token);
        parent.children.push(node as unknown as Nodes);
        stack.push(node);
        break;
      }
      case "em_close":
      case "strong_close":
      case "s_close":
      case "link_close":
        stack.pop();
        break;
    }
  }
}

function inlineParent(token: Token): Parent {
  switch (token.type) {
    case "em_open":
      return { type: "emphasis", children: [] };
    case "strong_open":
      return { type: "strong", children: [] };
    case "s_open":
      return { type: "delete", children: [] };
    default:
      return { type: "link", url: attribute(token, "href") ?? "", title: attribute(token, "title"), children: [] } as unknown as Parent;
  }
}

/** Text joins the text before it, as a parser that reads whole runs of text gives it. */
function appendText(parent: Parent, value: string): void {
  if (value === "") return;
  const last = parent.children[parent.children.length - 1];
  if (last?.type === "text") last.value += value;
  else parent.children.push({ type: "text", value });
}

/** An image's alt: the text of its label, without the markup. */
function plainText(tokens: Token[]): string {
  let text = "";
  for (const token of tokens) {
    if (token.type === "text" || token.type === "code_inline") text += token.content;
    else if (token.type === "softbreak") text += "\n";
    else if (token.type === "image") text += plainText(token.children ?? []);
  }
  return text;
}

/**
 * GFM: a list item whose first paragraph starts `[ ]`, `[x]` or `[X]`, then whitespace or a line
 * break, then more, is a task (done or not); the marker and one whitespace character go.
 */
function takeTaskMarker(item: ListItem): void {
  const first = item.children[0];
  if (first?.type !== "paragraph") return;
  const head = first.children[0];
  if (head?.type !== "text" || !TASK_MARKER.test(head.value)) return;
  const after = head.value.slice(TASK_MARKER_LENGTH);
  const next = first.children[1];
  if (after === "" ? next?.type !== "break" : !/^[ \t\n]/.test(after)) return;
  const rest = after.slice(1);
  if (!/\S/.test(rest) && !next) return;
  item.checked = head.value[1] !== " ";
  if (rest === "") first.children.shift();
  else head.value = rest;
}

function alignOf(token: Token): AlignType {
  const align = /text-align:(left|right|center)/.exec(attribute(token, "style") ?? "")?.[1];
  return (align as AlignType | undefined) ?? null;
}

function attribute(token: Token, name: string): string | null {
  const value = token.attrGet(name);
  return value === null ? null : String(value);
}

/** A footnote's label as written (markdown-it-footnote keeps it in the token's meta). */
function labelOf(token: Token): string {
  return String((token.meta as { label?: unknown } | null)?.label ?? "");
}

/** How mdast names a footnote: its label with whitespace collapsed, case-folded. */
function identifierOf(label: string): string {
  return label
    .replace(/[\t\n\r ]+/g, " ")
    .trim()
    .toLowerCase();
}

function withoutFinalNewline(text: string): string {
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/** Where a block of lines [startLine, endLine) ends: after its last line that is not blank (markdown-it counts a list's trailing blank line in). */
function blockEnd(text: string, starts: number[], startLine: number, endLine: number): number {
  let last = endLine - 1;
  while (last > startLine && isBlank(text, starts[last], last + 1 < starts.length ? starts[last + 1] - 1 : text.length)) last--;
  return last + 1 < starts.length ? starts[last + 1] - 1 : text.length;
}

function isBlank(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (text[i] !== " " && text[i] !== "\t") return false;
  return true;
}

function pointAt(starts: number[], offset: number): Point {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle] <= offset) low = middle;
    else high = middle - 1;
  }
  return { line: low + 1, column: offset - starts[low] + 1, offset };
}

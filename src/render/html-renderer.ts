// Markdown (CommonMark + GFM, what the core sends) → safe HTML, for every platform that shows HTML:
// the web chat and Matrix's `formatted_body`. Agent output is untrusted. The markdown is parsed once
// (render/markdown.ts), turned into an HTML tree by mdast-util-to-hast with our own handlers (raw
// HTML becomes text, links keep only http(s) and mailto targets, images become links), and the tree
// then passes hast-util-sanitize with a strict allow-list schema before hast-util-to-html writes it.
// The handlers decide what we mean to emit; the schema is the gate that holds even if they are wrong.
// Loaded by loadMarkdown() (render/markdown.ts), after start-up; callers use render/html.ts.
import { defaultSchema, sanitize, type Schema } from "hast-util-sanitize";
import { toHtml } from "hast-util-to-html";
import { defaultHandlers, toHast, type Handlers, type State } from "mdast-util-to-hast";
import { normalizeUri } from "micromark-util-sanitize-uri";
import type { Element, ElementContent, Nodes as HastNodes, Properties, Root as HastRoot } from "hast";
import type * as Mdast from "mdast";
import { parseMarkdown } from "./markdown.js";

/**
 * Who reads the HTML. `web`: the web chat, whose stylesheet knows our classes (code frames, table
 * scrollers, task boxes, column alignment) and whose links open in a new tab. `matrix`: a Matrix
 * `formatted_body`, held to the tags and attributes the Matrix spec lets clients show (no classes but
 * `language-*` on code, no inputs, no `<img>` since only `mxc:` images are allowed there).
 */
export type HtmlProfile = "web" | "matrix";

export interface HtmlOptions {
  profile: HtmlProfile;
}

/** Link targets that stay clickable; anything else (javascript:, data:, relative paths) becomes text. */
const SAFE_LINK = /^(?:https?:\/\/|mailto:)/i;
const SAFE_PROTOCOLS = ["http", "https", "mailto"];
/** A code block's info string keeps only name characters (`c++`, `c#`, `objective-c`, `ts.d`). */
const LANGUAGE_JUNK = /[^\w+#.-]/g;
const LANGUAGE_MAX_CHARS = 32;
const LANGUAGE_CLASS = /^language-[\w+#.-]{1,32}$/;
/** A soft line break with the spaces around it: a chat keeps the sender's line breaks. */
const LINE_BREAK = /[ \t]*\r?\n[ \t]*/;
const TASK_MARK = { done: "☑ ", open: "☐ " };
const ALIGN_CLASSES = ["align-left", "align-center", "align-right"];

/** Tags both profiles emit; each is in the default (GitHub) schema and in the Matrix spec's list. */
const SHARED_TAGS = [
  "a",
  "blockquote",
  "br",
  "code",
  "del",
  "div",
  "em",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "hr",
  "li",
  "ol",
  "p",
  "pre",
  "strong",
  "sup",
  "table",
  "tbody",
  "td",
  "th",
  "thead",
  "tr",
  "ul",
];

/**
 * The default (GitHub) schema narrowed to what we emit. Every key is set, since sanitize() fills
 * missing keys from the default: no style, no `on*`, no ids (nothing to clobber), no inputs, no images.
 */
function strictSchema(extraTags: string[], attributes: Schema["attributes"]): Schema {
  return {
    tagNames: defaultSchema.tagNames!.filter((tag) => SHARED_TAGS.includes(tag) || extraTags.includes(tag)),
    attributes,
    protocols: { href: SAFE_PROTOCOLS },
    ancestors: defaultSchema.ancestors,
    required: {},
    clobber: [],
    clobberPrefix: "",
    strip: ["script", "style"],
    allowComments: false,
    allowDoctypes: false,
  };
}

export const HTML_SCHEMAS: Record<HtmlProfile, Schema> = {
  // Class values are exact allow-lists: the page's stylesheet and nothing else.
  web: strictSchema(["span"], {
    a: ["href", ["target", "_blank"], ["rel", "noopener", "noreferrer"]],
    ol: ["start"],
    code: [["className", LANGUAGE_CLASS]],
    div: [["className", "code", "code-lang", "table", "footnote"]],
    li: [["className", "task-item"]],
    span: [["className", "task", "task-done"]],
    th: [["className", ...ALIGN_CLASSES]],
    td: [["className", ...ALIGN_CLASSES]],
  }),
  matrix: strictSchema([], {
    a: ["href"],
    ol: ["start"],
    code: [["className", LANGUAGE_CLASS]],
  }),
};

/** Serialise with named references (`&lt;`) rather than numeric ones, for readable output. */
const SERIALIZE = { characterReferences: { useNamedReferences: true } } as const;

/** Markdown → sanitised HTML for the given profile. */
export function markdownToHtml(markdown: string, options: HtmlOptions): string {
  return toHtml(markdownToHast(markdown, options), SERIALIZE);
}

/** Inline markdown of one line (a tool title, a plan entry), without the paragraph around it. */
export function inlineMarkdownToHtml(line: string, options: HtmlOptions): string {
  const root = markdownToHast(line, options);
  const only = root.children.length === 1 ? root.children[0] : undefined;
  const content = only?.type === "element" && only.tagName === "p" ? only.children : root.children;
  return toHtml({ type: "root", children: content }, SERIALIZE);
}

/** Markdown → sanitised HTML tree. */
function markdownToHast(markdown: string, options: HtmlOptions): HastRoot {
  const { tree } = parseMarkdown(markdown);
  const hast = toHast(tree, { handlers: handlersFor(options.profile) });
  dropLayoutNewlines(hast);
  return sanitize(hast, HTML_SCHEMAS[options.profile]) as HastRoot;
}

function element(tagName: string, properties: Properties, children: ElementContent[]): Element {
  return { type: "element", tagName, properties, children };
}

function text(value: string): ElementContent {
  return { type: "text", value };
}

/** Text with each line break as `<br>` (CommonMark would fold a soft break into a space). */
function withBreaks(value: string): ElementContent[] {
  const lines = value.split(LINE_BREAK);
  return lines.flatMap((line, index) => (index === 0 ? [text(line)] : [element("br", {}, []), text(line)])).filter((n) => n.type !== "text" || n.value);
}

/** Handlers for one render: they hold whether we are inside a link (an anchor never nests). */
function handlersFor(profile: HtmlProfile): Handlers {
  const web = profile === "web";
  let inLink = false;

  const linkTo = (url: string, label: () => ElementContent[]): ElementContent[] => {
    if (inLink) return label();
    inLink = true;
    const children = label();
    inLink = false;
    if (!SAFE_LINK.test(url)) return children;
    // Percent-encoded (no quote, `<` or space is left to escape); the scheme lower-cased, since the
    // sanitiser compares schemes case-sensitively and `HTTPS://` is as good as `https://`.
    const href = normalizeUri(url.replace(/^[a-z]+:/i, (scheme) => scheme.toLowerCase()));
    const properties: Properties = web ? { href, target: "_blank", rel: ["noopener", "noreferrer"] } : { href };
    return [element("a", properties, children.length ? children : [text(url)])];
  };

  return {
    text: (_state, node: Mdast.Text) => withBreaks(node.value),
    // Raw HTML in agent output is shown as what it is: text.
    html: (_state, node: Mdast.Html) => withBreaks(node.value),
    break: () => element("br", {}, []),
    link: (state, node: Mdast.Link) => linkTo(node.url, () => state.all(node)),
    // Images are never loaded (the page makes no request beyond its server): they become links.
    image: (_state, node: Mdast.Image) => linkTo(node.url, () => [text(node.alt || node.url)]),
    code: (_state, node: Mdast.Code) => codeBlock(node.value, node.lang, web),
    listItem: (state, node: Mdast.ListItem, parent) => listItem(state, node, parent, web),
    table: (state, node: Mdast.Table) => table(state, node, web),
    // Footnotes stay where they are written: no ids, no in-page links to clobber.
    footnoteReference: (_state, node: Mdast.FootnoteReference) => element("sup", {}, [text(node.label ?? node.identifier)]),
    footnoteDefinition: (state, node: Mdast.FootnoteDefinition) => {
      const mark = [element("sup", {}, [text(node.label ?? node.identifier)]), text(" ")];
      const body = state.all(node);
      const first = body[0];
      if (first?.type === "element" && first.tagName === "p") first.children.unshift(...mark);
      else body.unshift(...mark);
      return element("div", web ? { className: ["footnote"] } : {}, body);
    },
  };
}

/** `<pre><code class="language-x">`; the web chat frames it with a language label (and a copy button). */
function codeBlock(value: string, lang: string | null | undefined, web: boolean): Element {
  const language = lang?.replace(LANGUAGE_JUNK, "").slice(0, LANGUAGE_MAX_CHARS);
  const pre = element("pre", {}, [element("code", language ? { className: [`language-${language}`] } : {}, [text(value)])]);
  if (!web) return pre;
  const label = language ? [element("div", { className: ["code-lang"] }, [text(language)])] : [];
  return element("div", { className: ["code"] }, [...label, pre]);
}

/** A GFM task item: a styled box on the web, a ☑/☐ mark for Matrix (which allows no inputs). */
function listItem(state: State, node: Mdast.ListItem, parent: Mdast.Parents | undefined, web: boolean): ElementContent | ElementContent[] | undefined {
  if (typeof node.checked !== "boolean") return defaultHandlers.listItem(state, node, parent);
  const item = defaultHandlers.listItem(state, { ...node, checked: null }, parent);
  const mark = web ? element("span", { className: node.checked ? ["task", "task-done"] : ["task"] }, []) : text(node.checked ? TASK_MARK.done : TASK_MARK.open);
  // A loose item keeps its paragraphs: the mark goes into the first one, not on a line of its own.
  const firstBlock = item.children.find((child) => child.type === "element");
  const target = firstBlock?.type === "element" && firstBlock.tagName === "p" && item.children.indexOf(firstBlock) <= 1 ? firstBlock : item;
  target.children.unshift(mark);
  if (web) item.properties.className = ["task-item"];
  return item;
}

/** GFM column alignment: a class the web stylesheet knows; Matrix allows no attributes on cells. */
function table(state: State, node: Mdast.Table, web: boolean): Element {
  const result = defaultHandlers.table(state, node);
  for (const section of result.children) {
    if (section.type !== "element") continue;
    for (const row of section.children) {
      if (row.type !== "element") continue;
      for (const cell of row.children) {
        if (cell.type !== "element" || cell.properties.align === undefined) continue;
        if (web) cell.properties.className = [`align-${cell.properties.align}`];
        delete cell.properties.align;
      }
    }
  }
  return web ? element("div", { className: ["table"] }, [result]) : result;
}

/**
 * mdast-util-to-hast puts a newline text between block elements for pretty printing; the chat does
 * not need them (our own line breaks are `<br>` elements by then). Code keeps its text untouched.
 */
function dropLayoutNewlines(node: HastNodes): void {
  if (node.type !== "root" && node.type !== "element") return;
  if (node.type === "element" && node.tagName === "pre") return;
  node.children = node.children.filter((child) => child.type !== "text" || child.value !== "\n") as typeof node.children;
  for (const child of node.children) dropLayoutNewlines(child);
}

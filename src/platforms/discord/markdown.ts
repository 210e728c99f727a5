// CommonMark + GFM → Discord's markdown. Discord reads most of CommonMark (emphasis, `**bold**`,
// `~~strike~~`, code spans and fences with a language, `#`–`###` headings, lists, `> ` quotes,
// masked links for http(s)), so the tree from the shared parser is reshaped where Discord differs
// and printed back with mdast-util-to-markdown, which escapes what would otherwise turn into markup:
// - no tables, images, footnotes, link definitions, HTML, rules or `####`+ headings: tables become
//   padded code blocks, images links, the rest text or bold lines;
// - quotes do not nest; checkboxes show as ☑/☐; a hard break is just a newline;
// - Discord's own markup is escaped too: `||spoiler||`, `__underline__` inside words, `-# subtext`;
// - a fence only closes on exactly three backticks, so backtick runs inside code are broken up.
import { toMarkdown, type Options, type Unsafe } from "mdast-util-to-markdown";
import { gfmToMarkdown } from "mdast-util-gfm";
import { toString as mdastToString } from "mdast-util-to-string";
import type { Nodes, Parents, PhrasingContent, Root, RootContent } from "mdast";
import { parseMarkdown } from "../../render/markdown.js";
import { tableAsText } from "../../render/table.js";

const HORIZONTAL_RULE = "──────────";
/** Deepest heading Discord renders (`###`); deeper ones become bold lines. */
const DEEPEST_HEADING = 3;
const MASKABLE_URL = /^https?:\/\//i;
const ZERO_WIDTH_SPACE = "\u200b";

const DISCORD_UNSAFE: Unsafe[] = [
  { character: "|", after: "\\|", inConstruct: "phrasing" },
  { character: "-", after: "#", atBreak: true },
];

const OPTIONS: Options = {
  extensions: [gfmToMarkdown()],
  bullet: "-",
  listItemIndent: "one",
  fences: true,
  unsafe: DISCORD_UNSAFE,
  handlers: {
    break: () => "\n",
    // CommonMark leaves `__` inside a word alone, so the printer does not escape it; Discord underlines it.
    text: (node, _parent, state, info) => escapeUnderlineRuns(state.safe(node.value, info)),
  },
};

export function markdownToDiscord(markdown: string): string {
  const reshaped: Root = { type: "root", children: reshapeChildren(parseMarkdown(markdown).tree, false) as RootContent[] };
  return toMarkdown(reshaped, OPTIONS).trimEnd();
}

function reshapeChildren(parent: Parents, inQuote: boolean): Nodes[] {
  return parent.children.flatMap((child) => reshape(child as Nodes, inQuote));
}

function reshape(node: Nodes, inQuote: boolean): Nodes[] {
  const children = () => reshapeChildren(node as Parents, inQuote);
  switch (node.type) {
    case "table":
      return [{ type: "code", value: breakFences(tableAsText(node)) }];
    case "code":
      return [{ ...node, value: breakFences(node.value) }];
    case "thematicBreak":
      return [{ type: "paragraph", children: [{ type: "text", value: HORIZONTAL_RULE }] }];
    case "html":
      return [{ type: "text", value: node.value }];
    case "heading":
      if (node.depth <= DEEPEST_HEADING) return [{ ...node, children: children() as PhrasingContent[] }];
      return [{ type: "paragraph", children: [{ type: "strong", children: children() as PhrasingContent[] }] }];
    case "blockquote":
      // Discord shows one level of quote: an inner quote's blocks join the outer one.
      if (inQuote) return reshapeChildren(node, true);
      return [{ ...node, children: reshapeChildren(node, true) as typeof node.children }];
    case "listItem": {
      const items = children();
      if (node.checked === true || node.checked === false) {
        const first = items[0];
        const box: PhrasingContent = { type: "text", value: node.checked ? "☑ " : "☐ " };
        if (first?.type === "paragraph") items[0] = { ...first, children: [box, ...first.children] };
        else items.unshift({ type: "paragraph", children: [box] });
      }
      return [{ ...node, checked: null, children: items as typeof node.children }];
    }
    case "link":
      return [link(node.url, children() as PhrasingContent[])];
    case "image":
      return [link(node.url, [{ type: "text", value: node.alt || node.url }])];
    case "footnoteReference":
      return [{ type: "text", value: `[${node.label ?? node.identifier}]` }];
    case "footnoteDefinition": {
      const [first, ...rest] = children();
      const marker: PhrasingContent = { type: "text", value: `[${node.label ?? node.identifier}]: ` };
      const head = first?.type === "paragraph" ? { ...first, children: [marker, ...first.children] } : { type: "paragraph" as const, children: [marker] };
      return [head, ...(first?.type === "paragraph" ? rest : [first, ...rest].filter(Boolean))];
    }
    default:
      if ("children" in node) return [{ ...node, children: children() } as Nodes];
      return [node];
  }
}

/** Discord masks only http(s) links; anything else reads better as text with its target. */
function link(url: string, label: PhrasingContent[]): PhrasingContent {
  if (MASKABLE_URL.test(url)) return { type: "link", url, children: label };
  const text = mdastToString({ type: "paragraph", children: label });
  return { type: "text", value: text && text !== url ? `${text} (${url})` : url };
}

/** Escapes the first `_` of every unescaped `__` in already-escaped markdown text. */
function escapeUnderlineRuns(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === "\\") {
      out += char + (text[i + 1] ?? "");
      i++;
    } else if (char === "_" && text[i + 1] === "_") {
      out += "\\__";
      i++;
    } else out += char;
  }
  return out;
}

function breakFences(code: string): string {
  return code.replace(/```/g, `\`${ZERO_WIDTH_SPACE}\`${ZERO_WIDTH_SPACE}\``);
}

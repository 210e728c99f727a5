// CommonMark + GFM → Telegram's HTML parse mode. Telegram knows only inline styles, links, code,
// pre and blockquote (no headings, lists or tables), so block structure is rendered as text:
// headings bold, list items with bullets and indentation, tables as a monospace block.
// Only `<`, `>` and `&` (and `"` inside attributes) need escaping.
import { parseMarkdown } from "../../render/markdown.js";
import { renderedOnce } from "../../render/rendered-once.js";
import { tableAsText } from "../../render/table.js";
import type { Nodes, Parents, Table, List } from "mdast";

const LINK_PROTOCOLS = /^(https?:|tg:|mailto:)/i;
const LIST_INDENT = "  ";
const BULLETS = ["•", "◦", "▪"];
const HORIZONTAL_RULE = "──────────";

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function escapeAttribute(text: string): string {
  return escapeHtml(text).replace(/"/g, "&quot;");
}

interface RenderState {
  listDepth: number;
  inBlockquote: boolean;
  inLink: boolean;
  /** Styles already open around this node: a nested `<b>` inside `<b>` adds nothing and risks a refusal. */
  openStyles: ReadonlySet<string>;
}

const TOP_LEVEL: RenderState = { listDepth: 0, inBlockquote: false, inLink: false, openStyles: new Set() };
/** A top-level block renders the same wherever it stands: no state reaches it from its siblings. */
const renderTopLevel = renderedOnce((block: Nodes) => renderNode(block, TOP_LEVEL));

export function markdownToTelegramHtml(markdown: string): string {
  const { tree } = parseMarkdown(markdown);
  return renderBlocks(tree, TOP_LEVEL, "\n\n", renderTopLevel).trim();
}

function renderBlocks(parent: Parents, state: RenderState, separator = "\n\n", render = (child: Nodes) => renderNode(child, state)): string {
  return parent.children
    .map((child) => render(child as Nodes))
    .filter((rendered) => rendered.length > 0)
    .join(separator);
}

function renderInline(parent: Parents, state: RenderState): string {
  return parent.children.map((child) => renderNode(child as Nodes, state)).join("");
}

function renderNode(node: Nodes, state: RenderState): string {
  switch (node.type) {
    case "root":
      return renderBlocks(node, state);
    case "paragraph":
      return renderInline(node, state);
    case "heading":
      return styled("b", node, state);
    case "thematicBreak":
      return HORIZONTAL_RULE;
    case "blockquote": {
      // Telegram rejects a blockquote inside a blockquote: only the outermost one becomes a tag.
      if (state.inBlockquote) return renderBlocks(node, state, "\n");
      const inner = renderBlocks(node, { ...state, inBlockquote: true }, "\n");
      return `<blockquote>${inner}</blockquote>`;
    }
    case "list":
      return renderList(node, state);
    case "listItem":
      return renderBlocks(node, state, "\n");
    case "code": {
      const language = node.lang?.replace(/[^\w+#.-]/g, "");
      const body = escapeHtml(node.value);
      return language ? `<pre><code class="language-${language}">${body}</code></pre>` : `<pre>${body}</pre>`;
    }
    case "html":
      return escapeHtml(node.value);
    case "table":
      return renderTable(node);
    case "footnoteDefinition":
      return `[^${escapeHtml(node.label ?? node.identifier)}]: ${renderBlocks(node, state, "\n")}`;
    case "text":
      return escapeHtml(node.value);
    case "emphasis":
      return styled("i", node, state);
    case "strong":
      return styled("b", node, state);
    case "delete":
      return styled("s", node, state);
    case "inlineCode":
      return `<code>${escapeHtml(node.value)}</code>`;
    case "break":
      return "\n";
    case "link":
      return renderLink(node.url, renderInline(node, { ...state, inLink: true }), state);
    case "image":
      return renderLink(node.url, escapeHtml(node.alt || "image"), state);
    case "footnoteReference":
      return `[^${escapeHtml(node.label ?? node.identifier)}]`;
    default:
      return "children" in node ? renderInline(node as Parents, state) : "";
  }
}

function styled(tag: "b" | "i" | "s", node: Parents, state: RenderState): string {
  if (state.openStyles.has(tag)) return renderInline(node, state);
  const inner = renderInline(node, { ...state, openStyles: new Set([...state.openStyles, tag]) });
  return `<${tag}>${inner}</${tag}>`;
}

function renderLink(url: string, label: string, state: RenderState): string {
  // Telegram refuses relative or odd URLs in href; such links keep their text and show the target.
  if (state.inLink) return label;
  if (!LINK_PROTOCOLS.test(url)) return url && url !== label ? `${label} (${escapeHtml(url)})` : label;
  return `<a href="${escapeAttribute(url)}">${label || escapeHtml(url)}</a>`;
}

function renderList(list: List, state: RenderState): string {
  const indent = LIST_INDENT.repeat(state.listDepth);
  const bullet = BULLETS[Math.min(state.listDepth, BULLETS.length - 1)];
  const nested = { ...state, listDepth: state.listDepth + 1 };
  const start = list.start ?? 1;
  return list.children
    .map((item, index) => {
      const marker = list.ordered ? `${start + index}.` : bullet;
      const check = item.checked === true ? "☑ " : item.checked === false ? "☐ " : "";
      const parts = item.children.map((child) => renderNode(child as Nodes, nested)).filter((part) => part.length > 0);
      const [first = "", ...rest] = parts;
      // Continuation paragraphs line up under the item's text; nested lists carry their own indent.
      const continuation = rest.map((part, i) =>
        item.children[i + 1]?.type === "list"
          ? part
          : part
              .split("\n")
              .map((line) => `${indent}${LIST_INDENT}${line}`)
              .join("\n"),
      );
      return [`${indent}${marker} ${check}${first}`, ...continuation].join("\n");
    })
    .join("\n");
}

function renderTable(table: Table): string {
  return `<pre>${escapeHtml(tableAsText(table))}</pre>`;
}

/** What Telegram counts against its 4096 limit: the text after entity parsing (UTF-16 units). */
export function visibleLength(html: string): number {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&(lt|gt|amp|quot);/g, "_")
    .replace(/&#x?[0-9a-f]+;/gi, "_").length;
}

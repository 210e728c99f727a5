// CommonMark + GFM → Slack mrkdwn. Parsed once into mdast and printed to Slack's
// dialect, because Slack's own markup differs in the places that matter: `*bold*`, `_italic_`,
// `~strike~`, links as `<url|label>`, no headings, no tables, no nested-list syntax, and `& < >`
// must be escaped everywhere.
import { parseMarkdown } from "../../render/markdown.js";
import { renderedOnce } from "../../render/rendered-once.js";
import { tableAsText } from "../../render/table.js";
import type { List, ListItem, Nodes, Parents, PhrasingContent, Table } from "mdast";

/** Escapes the three characters Slack treats as control characters in any text field. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

const BULLETS = ["•", "◦", "▪"];
const LIST_INDENT = "    ";

/** A top-level block prints the same wherever it stands. */
const renderTopLevel = renderedOnce(renderBlock);

export function markdownToMrkdwn(markdown: string): string {
  return renderBlocks(parseMarkdown(markdown).tree.children, renderTopLevel).trim();
}

function renderBlocks(nodes: readonly Nodes[], render = renderBlock): string {
  return nodes
    .map((node) => render(node))
    .filter((text) => text !== "")
    .join("\n\n");
}

function renderBlock(node: Nodes): string {
  switch (node.type) {
    case "paragraph":
      return renderInline(node.children);
    case "heading":
      // Slack has no headings: a bold line reads as one.
      return `*${plainText(node)}*`;
    case "thematicBreak":
      return "──────────";
    case "blockquote":
      return renderBlocks(node.children)
        .split("\n")
        .map((line) => `> ${line}`)
        .join("\n");
    case "list":
      return renderList(node, 0);
    case "code":
      // The language tag is dropped: Slack would print it as the first line of the block.
      return fence(escapeMrkdwn(node.value));
    case "html":
      return escapeMrkdwn(node.value);
    case "table":
      return renderTable(node);
    case "footnoteDefinition":
      return `[${escapeMrkdwn(node.label ?? node.identifier)}]: ${renderBlocks(node.children)}`;
    default:
      return "children" in node ? renderInline(node.children as PhrasingContent[]) : renderInline([node as PhrasingContent]);
  }
}

function fence(body: string): string {
  return `\`\`\`\n${body}\n\`\`\``;
}

function renderList(list: List, depth: number): string {
  const start = list.start ?? 1;
  return list.children
    .map((item, index) => {
      const marker = list.ordered ? `${start + index}.` : BULLETS[Math.min(depth, BULLETS.length - 1)];
      return renderListItem(item, marker, depth);
    })
    .join("\n");
}

function renderListItem(item: ListItem, marker: string, depth: number): string {
  const indent = LIST_INDENT.repeat(depth);
  const checkbox = item.checked === true ? "☑ " : item.checked === false ? "☐ " : "";
  const lines: string[] = [];
  let first = true;
  for (const child of item.children) {
    if (child.type === "list") {
      lines.push(renderList(child, depth + 1));
      continue;
    }
    const text = renderBlock(child);
    const childLines = text.split("\n");
    if (first) {
      lines.push(`${indent}${marker} ${checkbox}${childLines[0]}`);
      for (const line of childLines.slice(1)) lines.push(`${indent}${LIST_INDENT}${line}`);
      first = false;
    } else {
      for (const line of childLines) lines.push(`${indent}${LIST_INDENT}${line}`);
    }
  }
  if (first) lines.unshift(`${indent}${marker} ${checkbox}`.trimEnd());
  return lines.join("\n");
}

/** Tables become a monospace block with padded columns: the only way Slack keeps them aligned. */
function renderTable(table: Table): string {
  return fence(escapeMrkdwn(tableAsText(table)));
}

function renderInline(nodes: readonly PhrasingContent[]): string {
  return nodes.map((node) => renderPhrasing(node)).join("");
}

function renderPhrasing(node: PhrasingContent): string {
  switch (node.type) {
    case "text":
      return escapeMrkdwn(node.value);
    case "strong":
      return wrap("*", renderInline(node.children));
    case "emphasis":
      return wrap("_", renderInline(node.children));
    case "delete":
      return wrap("~", renderInline(node.children));
    case "inlineCode":
      return `\`${escapeMrkdwn(node.value)}\``;
    case "break":
      return "\n";
    case "link":
      return slackLink(node.url, plainText(node));
    case "image":
      return slackLink(node.url, node.alt || node.url);
    case "footnoteReference":
      return `[${escapeMrkdwn(node.label ?? node.identifier)}]`;
    case "html":
      return escapeMrkdwn(node.value);
    default:
      return "";
  }
}

/** Slack needs the markers flush against the text; whitespace inside moves outside. */
function wrap(marker: string, inner: string): string {
  const match = /^(\s*)([\s\S]*?)(\s*)$/.exec(inner);
  if (!match || match[2] === "") return inner;
  return `${match[1]}${marker}${match[2]}${marker}${match[3]}`;
}

function slackLink(url: string, label: string): string {
  // `|` and `>` would end the label early; `<` and `&` must be escaped anyway.
  const safeUrl = url.replace(/&/g, "&amp;").replace(/</g, "%3C").replace(/>/g, "%3E").replace(/\|/g, "%7C");
  const safeLabel = escapeMrkdwn(label).replace(/\|/g, "¦");
  if (!label || label === url) return `<${safeUrl}>`;
  return `<${safeUrl}|${safeLabel}>`;
}

function plainText(node: Nodes | Parents): string {
  if ("value" in node && typeof node.value === "string") return node.value;
  if (node.type === "image") return node.alt ?? "";
  if ("children" in node) return (node.children as Nodes[]).map(plainText).join("");
  return "";
}

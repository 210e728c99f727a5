// Markdown (CommonMark + GFM, what the core sends) → HTML for the page. Agent output is untrusted:
// every raw HTML node is escaped, attributes are only ever our own, and links keep only http(s)
// and mailto targets. Images are not loaded (the page makes no request beyond this server); they
// become links. Plans and tool lines get their own compact markup.
import { parseMarkdown } from "../../render/markdown.js";
import type { Definition, List, Nodes, Parents, Root, Table } from "mdast";
import type { WebMessageKind } from "./protocol.js";

const SAFE_LINK = /^(https?:\/\/|mailto:)/i;
const LANGUAGE_NAME = /[^\w+#.-]/g;
/** Marks the core's plan block puts before each entry (see render/blocks.ts). */
const PLAN_STATUS: Record<string, string> = { "☑": "completed", "▶": "in_progress", "☐": "pending" };

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

/** A message as the page shows it: markdown rendered, plain text escaped, plans and tools compact. */
export function renderMessageHtml(text: string, kind: WebMessageKind, format: "markdown" | "plain" = "markdown"): string {
  if (format === "plain" || kind === "user") return `<p class="plain">${escapeHtml(text)}</p>`;
  if (kind === "plan") return renderPlan(text);
  if (kind === "tool") return renderToolLines(text);
  return markdownToHtml(text);
}

export function markdownToHtml(markdown: string): string {
  const { tree, definitions } = parseMarkdown(markdown);
  return new HtmlRenderer(definitions).blocks(tree);
}

/** `**Plan**` then one `☐|▶|☑ entry` line each → a checklist. Anything else falls back to markdown. */
function renderPlan(text: string): string {
  const lines = text.split("\n");
  const entries = lines.slice(1).map((line) => /^(☑|▶|☐)\s?(.*)$/u.exec(line));
  if (!/^\*\*Plan\*\*$/.test(lines[0] ?? "") || entries.some((e) => !e)) return markdownToHtml(text);
  const items = entries.map((m) => {
    const status = PLAN_STATUS[m![1]];
    return `<li class="plan-${status}"><span class="plan-mark" aria-label="${status.replace("_", " ")}"></span>${inlineHtml(m![2])}</li>`;
  });
  return `<div class="plan"><div class="plan-title">Plan</div><ul class="plan-list">${items.join("")}</ul></div>`;
}

/** One line per tool call: icon, title (inline markdown), status mark. */
function renderToolLines(text: string): string {
  const lines = text.split("\n").filter((line) => line.trim());
  return `<div class="tools">${lines.map((line) => `<div class="tool-line">${inlineHtml(line)}</div>`).join("")}</div>`;
}

/** Inline markdown of one line, without the paragraph around it. */
function inlineHtml(line: string): string {
  return markdownToHtml(line).replace(/^<p>([\s\S]*)<\/p>$/, "$1");
}


class HtmlRenderer {
  private inLink = false;

  constructor(private readonly definitions: Map<string, Definition>) {}

  blocks(parent: Parents): string {
    return parent.children.map((child) => this.node(child as Nodes)).join("");
  }

  private inline(parent: Parents): string {
    return parent.children.map((child) => this.node(child as Nodes)).join("");
  }

  private node(node: Nodes): string {
    switch (node.type) {
      case "root":
        return this.blocks(node);
      case "paragraph":
        return `<p>${this.inline(node)}</p>`;
      case "heading":
        return `<h${node.depth}>${this.inline(node)}</h${node.depth}>`;
      case "thematicBreak":
        return "<hr>";
      case "blockquote":
        return `<blockquote>${this.blocks(node)}</blockquote>`;
      case "list":
        return this.list(node);
      case "listItem":
        return this.blocks(node);
      case "code":
        return this.code(node.value, node.lang);
      case "html":
        return escapeHtml(node.value);
      case "table":
        return this.table(node);
      case "definition":
        return "";
      case "footnoteDefinition":
        return `<div class="footnote"><sup>${escapeHtml(node.label ?? node.identifier)}</sup> ${this.blocks(node)}</div>`;
      case "text":
        // A chat keeps the sender's line breaks (CommonMark would fold them into spaces).
        return escapeHtml(node.value).replace(/\n/g, "<br>");
      case "emphasis":
        return `<em>${this.inline(node)}</em>`;
      case "strong":
        return `<strong>${this.inline(node)}</strong>`;
      case "delete":
        return `<del>${this.inline(node)}</del>`;
      case "inlineCode":
        return `<code>${escapeHtml(node.value)}</code>`;
      case "break":
        return "<br>";
      case "link":
        return this.link(node.url, () => this.inline(node));
      case "image":
        return this.link(node.url, () => escapeHtml(node.alt || node.url));
      case "linkReference":
      case "imageReference": {
        const label = () => (node.type === "imageReference" ? escapeHtml(node.alt || "image") : this.inline(node));
        const definition = this.definitions.get(node.identifier.toLowerCase());
        return definition ? this.link(definition.url, label) : label();
      }
      case "footnoteReference":
        return `<sup>${escapeHtml(node.label ?? node.identifier)}</sup>`;
      default:
        return "children" in node ? this.inline(node as Parents) : "";
    }
  }

  private link(url: string, label: () => string): string {
    if (this.inLink) return label();
    this.inLink = true;
    const text = label();
    this.inLink = false;
    // Other schemes (javascript:, data:, relative paths) keep their text but are not clickable.
    if (!SAFE_LINK.test(url)) return text;
    return `<a href="${escapeHtml(url)}" target="_blank" rel="noopener noreferrer">${text || escapeHtml(url)}</a>`;
  }

  private code(value: string, lang: string | null | undefined): string {
    const language = lang?.replace(LANGUAGE_NAME, "").slice(0, 32);
    const label = language ? `<div class="code-lang">${language}</div>` : "";
    const cls = language ? ` class="language-${language}"` : "";
    return `<div class="code">${label}<pre><code${cls}>${escapeHtml(value)}</code></pre></div>`;
  }

  private list(list: List): string {
    const tag = list.ordered ? "ol" : "ul";
    const start = list.ordered && list.start !== null && list.start !== undefined && list.start !== 1 ? ` start="${list.start}"` : "";
    const items = list.children.map((item) => {
      const checkbox = item.checked === true || item.checked === false ? `<span class="task ${item.checked ? "task-done" : ""}"></span>` : "";
      // Tight lists render their paragraphs without <p>, as GitHub does.
      const body = item.children
        .map((child) => (child.type === "paragraph" && !list.spread ? this.inline(child) : this.node(child as Nodes)))
        .join("");
      return `<li${checkbox ? ' class="task-item"' : ""}>${checkbox}${body}</li>`;
    });
    return `<${tag}${start}>${items.join("")}</${tag}>`;
  }

  private table(table: Table): string {
    const align = table.align ?? [];
    const rows = table.children.map((row, rowIndex) => {
      const cellTag = rowIndex === 0 ? "th" : "td";
      const cells = row.children.map((cell, column) => {
        const a = align[column];
        return `<${cellTag}${a ? ` class="align-${a}"` : ""}>${this.inline(cell)}</${cellTag}>`;
      });
      return `<tr>${cells.join("")}</tr>`;
    });
    const [head, ...body] = rows;
    return `<div class="table"><table><thead>${head ?? ""}</thead><tbody>${body.join("")}</tbody></table></div>`;
  }
}

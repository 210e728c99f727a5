// What the page shows for each message. Markdown goes through the shared renderer (render/html.ts,
// profile `web`: sanitised, raw HTML as text, only http(s)/mailto links, images as links); plans and
// tool lines get their own compact markup around inline markdown; plain text is escaped as is.
import { inlineMarkdownToHtml, markdownToHtml as renderMarkdown } from "../../render/html.js";
import type { WebMessageKind, WireMessage } from "./protocol.js";
import type { StoredMessage } from "./history.js";
import { INLINE_IMAGE_TYPES } from "./files.js";

const WEB = { profile: "web" } as const;
/** Marks the core's plan block puts before each entry (see render/blocks.ts). */
const PLAN_STATUS: Record<string, string> = { "☑": "completed", "▶": "in_progress", "☐": "pending" };

function escapeHtml(text: string): string {
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
  return renderMarkdown(markdown, WEB);
}

/** `**Plan**` then one `☐|▶|☑ entry` line each → a checklist. Anything else falls back to markdown. */
function renderPlan(text: string): string {
  const lines = text.split("\n");
  const entries = lines.slice(1).map((line) => /^(☑|▶|☐)\s?(.*)$/u.exec(line));
  if (!/^\*\*Plan\*\*$/.test(lines[0] ?? "") || entries.some((e) => !e)) return markdownToHtml(text);
  const items = entries.map((m) => {
    const status = PLAN_STATUS[m![1]];
    return `<li class="plan-${status}"><span class="plan-mark" aria-label="${status.replace("_", " ")}"></span>${inlineMarkdownToHtml(m![2], WEB)}</li>`;
  });
  return `<div class="plan"><div class="plan-title">Plan</div><ul class="plan-list">${items.join("")}</ul></div>`;
}

/** One line per tool call: icon, title (inline markdown), status mark. */
function renderToolLines(text: string): string {
  const lines = text.split("\n").filter((line) => line.trim());
  return `<div class="tools">${lines.map((line) => `<div class="tool-line">${inlineMarkdownToHtml(line, WEB)}</div>`).join("")}</div>`;
}

/** A kept message as the page gets it: its HTML, and where the agent's files load from. */
export function wireMessage(message: StoredMessage, conversation: string): WireMessage {
  const files = message.files?.map((f) => ({ ...f, ...(message.role === "agent" ? { url: `/files/${conversation}/${message.id}`, inline: INLINE_IMAGE_TYPES.has(f.mimeType) } : {}) }));
  return {
    id: message.id,
    role: message.role,
    kind: message.kind,
    html: message.text ? renderMessageHtml(message.text, message.kind, message.format) : "",
    buttons: message.buttons,
    files,
    at: message.at,
  };
}

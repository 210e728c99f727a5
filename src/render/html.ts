// Markdown (CommonMark + GFM) → safe HTML, for the web chat and Matrix's `formatted_body`. The
// renderer and its hast libraries (html-renderer.ts) load with the markdown parser, after start-up;
// every rendering path awaits loadMarkdown() first, so these stay synchronous.
import type { HtmlOptions } from "./html-renderer.js";
import { htmlRenderer } from "./markdown.js";

export type { HtmlOptions, HtmlProfile } from "./html-renderer.js";

/** Markdown → sanitised HTML for the given profile. */
export function markdownToHtml(markdown: string, options: HtmlOptions): string {
  return htmlRenderer().markdownToHtml(markdown, options);
}

/** Inline markdown of one line (a tool title, a plan entry), without the paragraph around it. */
export function inlineMarkdownToHtml(line: string, options: HtmlOptions): string {
  return htmlRenderer().inlineMarkdownToHtml(line, options);
}

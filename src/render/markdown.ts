// The markdown parser (markdown-it with GFM's extensions, nested into mdast) and the HTML
// renderer built on it (mdast → hast → sanitised HTML) load after start-up, not during it:
// `loadMarkdown()` runs in the idle moment after every platform is serving, and each path that
// renders awaits it first (a resolved promise once loaded), so the renderers stay synchronous.
import type { ParsedMarkdown } from "./markdown-parser.js";

export type { ParsedMarkdown };

type Parser = typeof import("./markdown-parser.js");
type HtmlRenderer = typeof import("./html-renderer.js");
let parser: Parser | undefined;
let html: HtmlRenderer | undefined;
let loading: Promise<void> | undefined;

/** Loads the parser and the HTML renderer once; later calls return the same promise. */
export function loadMarkdown(): Promise<void> {
  return (loading ??= Promise.all([import("./markdown-parser.js"), import("./html-renderer.js")]).then(([loadedParser, loadedHtml]) => {
    parser = loadedParser;
    html = loadedHtml;
  }));
}

export function parseMarkdown(markdown: string): ParsedMarkdown {
  if (!parser) throw new Error("parseMarkdown before loadMarkdown(): a rendering path did not await the parser");
  return parser.parseMarkdown(markdown);
}

/** The HTML renderer, once loadMarkdown() has resolved. */
export function htmlRenderer(): HtmlRenderer {
  if (!html) throw new Error("HTML rendering before loadMarkdown(): a rendering path did not await the parser");
  return html;
}

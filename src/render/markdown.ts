// The markdown parser (micromark + mdast + GFM, the largest set of modules Baton has) loads after
// start-up, not during it: `loadMarkdown()` runs in the idle moment after every platform is
// serving, and each path that renders awaits it first (a resolved promise once loaded), so the
// renderers themselves stay synchronous.
import type { ParsedMarkdown } from "./markdown-parser.js";

export type { ParsedMarkdown };

type Parser = typeof import("./markdown-parser.js");
let parser: Parser | undefined;
let loading: Promise<void> | undefined;

/** Loads the parser once; later calls return the same promise. */
export function loadMarkdown(): Promise<void> {
  return (loading ??= import("./markdown-parser.js").then((loaded) => {
    parser = loaded;
  }));
}

export function parseMarkdown(markdown: string): ParsedMarkdown {
  if (!parser) throw new Error("parseMarkdown before loadMarkdown(): a rendering path did not await the parser");
  return parser.parseMarkdown(markdown);
}

// The one markdown parser every dialect renders from: CommonMark + GFM into an mdast tree, with the
// link reference definitions collected (so `[text][ref]` can be resolved by each renderer). Loaded
// through markdown.ts, never imported directly. A streamed message parsed again with more text at
// its end reuses the blocks of the earlier parse that can no longer change (prefix-reuse.ts).
import { fromMarkdown, type Options } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfmFootnoteFromMarkdown } from "mdast-util-gfm-footnote";
import { gfmStrikethroughFromMarkdown } from "mdast-util-gfm-strikethrough";
import { gfmTableFromMarkdown } from "mdast-util-gfm-table";
import { gfmTaskListItemFromMarkdown } from "mdast-util-gfm-task-list-item";
import { gfm } from "micromark-extension-gfm";
import { gfmFootnote } from "micromark-extension-gfm-footnote";
import { gfmStrikethrough } from "micromark-extension-gfm-strikethrough";
import { gfmTable } from "micromark-extension-gfm-table";
import { gfmTaskListItem } from "micromark-extension-gfm-task-list-item";
import type { Definition, Nodes, Root } from "mdast";
import { PrefixReuse, type Parsed } from "./prefix-reuse.js";

export interface ParsedMarkdown {
  tree: Root;
  /** Link reference definitions by lower-cased identifier. */
  definitions: Map<string, Definition>;
}

// Made once: building the combined GFM syntax for every parse was a measurable part of each edit.
const ALL_OF_GFM: Options = { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] };
/**
 * GFM without its literal autolinks (`www.…`, `https://…`, `name@host`): that extension looks at
 * every letter of the text and takes half of the parse. A text in which none can start (no `www.`,
 * no `://`, no `@`) gives the same tree without it.
 */
const GFM_BUT_AUTOLINKS: Options = {
  extensions: [gfmFootnote(), gfmStrikethrough(), gfmTable(), gfmTaskListItem()],
  mdastExtensions: [gfmFootnoteFromMarkdown(), gfmStrikethroughFromMarkdown(), gfmTableFromMarkdown(), gfmTaskListItemFromMarkdown()],
};
const AUTOLINK_LITERAL_START = /www\.|:\/\/|@/i;
const NO_DEFINITIONS: ReadonlyMap<string, Definition> = new Map();

/** A parse of the whole text, nothing reused. */
export function parseWhole(markdown: string): Parsed {
  const tree = fromMarkdown(markdown, AUTOLINK_LITERAL_START.test(markdown) ? ALL_OF_GFM : GFM_BUT_AUTOLINKS);
  let hasDefinitions = false;
  const visit = (node: Nodes): void => {
    if (node.type === "definition" || node.type === "footnoteDefinition") hasDefinitions = true;
    else if ("children" in node) for (const child of node.children) visit(child as Nodes);
  };
  visit(tree);
  return { tree, hasDefinitions };
}

const reuse = new PrefixReuse(parseWhole);

export function parseMarkdown(markdown: string): ParsedMarkdown {
  const { tree, hasDefinitions } = reuse.parse(markdown);
  if (!hasDefinitions) return { tree, definitions: NO_DEFINITIONS as Map<string, Definition> };
  const definitions = new Map<string, Definition>();
  const visit = (node: Nodes): void => {
    if (node.type === "definition") definitions.set(node.identifier.toLowerCase(), node);
    if ("children" in node) for (const child of node.children) visit(child as Nodes);
  };
  visit(tree);
  return { tree, definitions };
}

// The one markdown parser every dialect renders from: CommonMark + GFM into an mdast tree, with the
// link reference definitions collected (so `[text][ref]` can be resolved by each renderer). Loaded
// through markdown.ts, never imported directly. A streamed message parsed again with more text at
// its end reuses the blocks of the earlier parse that can no longer change (prefix-reuse.ts).
import { fromMarkdown, type Options } from "mdast-util-from-markdown";
import { gfmAutolinkLiteralFromMarkdown } from "mdast-util-gfm-autolink-literal";
import { gfmFootnoteFromMarkdown } from "mdast-util-gfm-footnote";
import { gfmStrikethroughFromMarkdown } from "mdast-util-gfm-strikethrough";
import { gfmTableFromMarkdown } from "mdast-util-gfm-table";
import { gfmTaskListItemFromMarkdown } from "mdast-util-gfm-task-list-item";
import { gfmAutolinkLiteral } from "micromark-extension-gfm-autolink-literal";
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

// GFM's constructs, each made once (building them for every parse was a measurable part of each
// edit). Two of them cost far more than they are used: literal autolinks (`www.…`, `https://…`,
// `name@host`) look at every letter of the text and take half of the parse's time; tables try
// every line as a header row and add a quarter to its garbage. A text in which one cannot start
// gives the same tree without it, so each parse takes only the constructs its text can hold.
const AUTOLINK_LITERAL_START = /www\.|:\/\/|@/i;
/** A table's delimiter row has a `|`, or is one cell with a colon beside its hyphens (`:-`, `-:`). */
const TABLE_DELIMITER_PART = /\||:-|-:/;
/** GFM with or without those two, in GFM's own order of constructs; indexed [autolinks][tables]. */
const OPTIONS: Options[][] = [false, true].map((autolinks) => [false, true].map((tables) => gfmOptions(autolinks, tables)));

function gfmOptions(autolinks: boolean, tables: boolean): Options {
  return {
    extensions: [...(autolinks ? [gfmAutolinkLiteral()] : []), gfmFootnote(), gfmStrikethrough(), ...(tables ? [gfmTable()] : []), gfmTaskListItem()],
    mdastExtensions: [...(autolinks ? [gfmAutolinkLiteralFromMarkdown()] : []), gfmFootnoteFromMarkdown(), gfmStrikethroughFromMarkdown(), ...(tables ? [gfmTableFromMarkdown()] : []), gfmTaskListItemFromMarkdown()],
  };
}
const NO_DEFINITIONS: ReadonlyMap<string, Definition> = new Map();

/** A parse of the whole text, nothing reused. */
export function parseWhole(markdown: string): Parsed {
  const tree = fromMarkdown(markdown, OPTIONS[Number(AUTOLINK_LITERAL_START.test(markdown))][Number(TABLE_DELIMITER_PART.test(markdown))]);
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

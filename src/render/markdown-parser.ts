// The one markdown parser every dialect renders from: CommonMark + GFM into an mdast tree, with the
// link reference definitions collected (so `[text][ref]` can be resolved by each renderer). Loaded
// through markdown.ts, never imported directly. A streamed message parsed again with more text at
// its end reuses the blocks of the earlier parse that can no longer change (prefix-reuse.ts).
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import type { Definition, Nodes, Root } from "mdast";
import { PrefixReuse, type Parsed } from "./prefix-reuse.js";

export interface ParsedMarkdown {
  tree: Root;
  /** Link reference definitions by lower-cased identifier. */
  definitions: Map<string, Definition>;
}

// Made once: building the combined GFM syntax for every parse was a measurable part of each edit.
const syntax = [gfm()];
const mdastExtensions = [gfmFromMarkdown()];
const NO_DEFINITIONS: ReadonlyMap<string, Definition> = new Map();

/** A parse of the whole text, nothing reused. */
export function parseWhole(markdown: string): Parsed {
  const tree = fromMarkdown(markdown, { extensions: syntax, mdastExtensions });
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

// The one markdown parser every dialect renders from: CommonMark + GFM into an mdast tree, with the
// link reference definitions collected (so `[text][ref]` can be resolved by each renderer). Loaded
// through markdown.ts, never imported directly.
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import type { Definition, Nodes, Root } from "mdast";

export interface ParsedMarkdown {
  tree: Root;
  /** Link reference definitions by lower-cased identifier. */
  definitions: Map<string, Definition>;
}

export function parseMarkdown(markdown: string): ParsedMarkdown {
  const tree = fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  const definitions = new Map<string, Definition>();
  const visit = (node: Nodes): void => {
    if (node.type === "definition") definitions.set(node.identifier.toLowerCase(), node);
    if ("children" in node) for (const child of node.children) visit(child as Nodes);
  };
  visit(tree);
  return { tree, definitions };
}

// The parser leaves GFM's literal autolinks and tables out of a text in which none can start (they
// cost half of the parse's time and a quarter of its garbage). Whatever the text, the tree must be
// the one full GFM gives: checked against the reference parser on hand-picked texts, near misses of
// every autolink and table form, and random texts made of the characters that matter.
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { describe, expect, it } from "vitest";
import { parseWhole } from "../../src/render/markdown-parser.js";
import { seededRandom } from "../support/seeded-random.js";

function reference(markdown: string) {
  return fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
}

function expectSameAsFullGfm(markdown: string): void {
  expect(parseWhole(markdown).tree, JSON.stringify(markdown)).toEqual(reference(markdown));
}

const URLS = "see https://example.com/a_b_c?q=1, then www.example.org.";
const ADDRESSES = "mail me at someone@example.com or mailto:other@example.com or xmpp:me@example.com/res";
const CAPITALS = "HTTPS://EXAMPLE.COM and WWW.EXAMPLE.COM in capitals";
const TEXTS = [
  URLS,
  ADDRESSES,
  CAPITALS,
  "plain words, **bold**, *em*, `code`, ~~struck~~ and ~one tilde~",
  "| a | b |\n|---|:-:|\n| 1 | 2 |\n\nafter the table",
  "- [ ] task\n- [x] done\n\n1. one\n2. two",
  "a note[^1]\n\n[^1]: the note",
  "head\n:-\nbody",
  "head\n-:",
  "a | b\n-|-\n1 | 2",
  "| one |\n| :-: |\n| x |",
  "a link [text](https://example.com) and <https://example.com/angle>",
  "```\nhttps://example.com in code\n```\n\n`www.in.inline.code`",
];

/** Texts that look like an autolink but are none (they take the fast path and must parse the same). */
const NEAR_MISSES = [
  "ww.example.com and w.w.w.example",
  "www example and wwwexample.com",
  "http:/half and https:example and ftp:/x",
  "name(at)example.com and user at host dot com",
  "https and www and http as words",
  "a:b:c and /path/to/file.ts and C:\\dir",
  "setext heading\n---\n\nrule\n\n- - -",
  "not a table\n : - \n\n- list : item\n- other",
];

const TABLE_PIECES = ["a", "b c", " ", "-", "--", ":", "|", "\n", "\\", "`", "*", "> ", "- "];
const PIECES = ["w", "ww", "www", ".", ":", "/", "//", "@", "h", "http", "https", "s", "x", "example", "com", "*", "_", "~", "|", "-", "[", "]", "(", ")", "`", "<", ">", "!", "#", " ", " ", "\n", "\n\n", "1.", "- ", "[^1]", "W", "HTTP"];

describe("markdown parser", () => {
  it("gives the tree of full GFM for texts with and without autolinks", () => {
    for (const text of [...TEXTS, ...NEAR_MISSES]) expectSameAsFullGfm(text);
  });

  it("still makes links of literal URLs and addresses", () => {
    const links = (markdown: string) => JSON.stringify(parseWhole(markdown).tree).match(/"type":"link"/g)?.length ?? 0;
    expect(links(URLS)).toBe(2);
    expect(links(ADDRESSES)).toBe(3);
    expect(links(CAPITALS)).toBe(2);
    expect(links(NEAR_MISSES.join("\n\n"))).toBe(0);
  });

  it("still makes tables, and none of a setext underline or a thematic break", () => {
    const tables = (markdown: string) => parseWhole(markdown).tree.children.filter((node) => node.type === "table").length;
    expect(tables("head\n:-\nbody")).toBe(1);
    expect(tables("a | b\n-|-\n1 | 2")).toBe(1);
    expect(tables(NEAR_MISSES.at(-2)!)).toBe(0);
  });

  it("gives the tree of full GFM for random texts made of autolink fragments and markdown syntax", () => {
    const random = seededRandom(42);
    for (let i = 0; i < 600; i++) {
      const length = 1 + Math.floor(random() * 40);
      const text = Array.from({ length }, () => PIECES[Math.floor(random() * PIECES.length)]).join("");
      expectSameAsFullGfm(text);
    }
  });

  it("gives the tree of full GFM for random texts made of table fragments", () => {
    const random = seededRandom(7);
    for (let i = 0; i < 600; i++) {
      const length = 1 + Math.floor(random() * 30);
      expectSameAsFullGfm(Array.from({ length }, () => TABLE_PIECES[Math.floor(random() * TABLE_PIECES.length)]).join(""));
    }
  });
});

// A streamed message is parsed again at every edit; the parser reuses the closed blocks of an
// earlier parse. Whatever the text and wherever the stream cuts it, the result must be the tree a
// parse of the whole text gives (positions included), and the reuse must really happen.
import { describe, expect, it } from "vitest";
import { parseWhole } from "../../src/render/markdown-parser.js";
import { PrefixReuse, type Parsed } from "../../src/render/prefix-reuse.js";
import { recordedAgentMessages } from "../support/recorded-acp.js";
import { seededRandom } from "../support/seeded-random.js";

/** Texts that stress where one block ends and the next begins, and what reaches across blocks. */
const TRICKY = [
  "para\n#",
  "para\n#foo\n\nnext",
  "para\n\n#\n\nafter",
  "- a\n- b\n\n- c\n\nend",
  "- a\n\n  continued in the item\n\n- b\n\nout",
  "1. one\n2. two\n\n3. three\n\npara",
  "- a\n\n1) other\n\n* third\n\ntext",
  "```js\nconst a = 1;\n\n\nconst b = 2;\n```\n\nafter the fence",
  "```\nnever closed\n\nstill code",
  "    indented code\n\n    more code\n\nparagraph",
  "> quote\nlazy line\n\n> another\n\nout",
  "Title\n=====\n\nSub\n---\n\npara\n\n---\n\nend",
  "| a | b |\n|---|:-:|\n| 1 | 2 |\n\nafter",
  "para\n| a | b |\n| - | - |\n| 1 | 2 |\n\nx",
  "<div>\n\nx\n\n</div>\n\nafter",
  "<!-- a comment\n\nstill comment -->\n\nafter",
  "[x] before the definition\n\ntext\n\n[x]: https://example.com\n\nmore [x]",
  "[y]: https://example.com\n\nuses [y] later\n\nand [y] again",
  "a note[^1]\n\nmore\n\n[^1]: the note\n\nend",
  "**bold\n\nnot bold**\n\n*em* and `code`\n\n~~gone~~ https://example.com/auto",
  "tab\tin\ttext\n\n\tindented by tab\n\nend",
  "emoji 🎉 and ünïcödé\n\n- [ ] task\n- [x] done\n\nend",
  "windows\r\nline\r\n\r\nendings\r\n\r\nhere",
  "  para indented two\n\n   three spaces\n\n    four is code\n\nend",
  "line with two spaces  \nhard break\n\nnext\\\nbackslash break\n\nend",
];

const AGENT_ANSWER = [
  "I looked at the failing test. The problem is in `parseConfig`:\n\n",
  "```ts\nexport function parseConfig(text: string) {\n  return yaml.parse(text);\n}\n```\n\n",
  "It never checks the **schema**. Here is what I changed:\n\n",
  "1. Validate with zod\n2. Name the key and the line in the error\n3. Keep the old file\n\n",
  "| file | lines |\n|---|---|\n| config/load.ts | +12 −3 |\n\n",
  "> Note: the test now runs against a temp dir.\n\n",
  "Run `npm test` to check. See https://example.com/docs for more.\n",
].join("");

/** Parses every growing prefix of `text` through one PrefixReuse, each checked against a whole parse. */
function streamAndCompare(reuse: PrefixReuse, text: string, cuts: number[]): void {
  for (const cut of cuts) {
    const prefix = text.slice(0, cut);
    const got = reuse.parse(prefix);
    const want = parseWhole(prefix);
    expect(got.hasDefinitions, JSON.stringify(prefix)).toBe(want.hasDefinitions);
    expect(got.tree, JSON.stringify(prefix)).toEqual(want.tree);
  }
}

const every = (text: string) => Array.from({ length: text.length }, (_, i) => i + 1);

describe("parsing a streamed message again reuses its closed blocks", () => {
  it("gives the whole parse's tree at every cut of texts that stress block boundaries", () => {
    for (const text of TRICKY) streamAndCompare(new PrefixReuse(parseWhole), text, every(text));
  });

  it("gives the whole parse's tree for what the real agent CLIs streamed, cut where their chunks ended", () => {
    const messages = recordedAgentMessages();
    expect(messages.length).toBeGreaterThan(5);
    const reuse = new PrefixReuse(parseWhole);
    for (const chunks of messages) {
      const cuts = chunks.map((_, i) => chunks.slice(0, i + 1).join("").length);
      streamAndCompare(reuse, chunks.join(""), cuts);
    }
  });

  it("gives the whole parse's tree for random mixes of those texts streamed in random chunks", () => {
    const random = seededRandom(19);
    const pieces = [...TRICKY, AGENT_ANSWER];
    const separators = ["", "\n", "\n\n", "\n\n\n", " "];
    for (let round = 0; round < 60; round++) {
      let text = "";
      const count = 2 + Math.floor(random() * 5);
      for (let i = 0; i < count; i++) text += pieces[Math.floor(random() * pieces.length)] + separators[Math.floor(random() * separators.length)];
      const cuts: number[] = [];
      for (let at = 0; at < text.length; ) cuts.push((at = Math.min(text.length, at + 1 + Math.floor(random() * 40))));
      streamAndCompare(new PrefixReuse(parseWhole), text, cuts);
    }
  });

  it("parses only the end of a long answer at each edit, and still matches the whole parse", () => {
    let parsedChars = 0;
    const reuse = new PrefixReuse((markdown: string): Parsed => {
      parsedChars += markdown.length;
      return parseWhole(markdown);
    });
    const text = AGENT_ANSWER.repeat(8);
    const cuts = Array.from({ length: Math.ceil(text.length / 100) }, (_, i) => Math.min(text.length, (i + 1) * 100));
    streamAndCompare(reuse, text, cuts);
    const wholeChars = cuts.reduce((sum, cut) => sum + cut, 0);
    expect(parsedChars).toBeLessThan(wholeChars / 5);
  });

  it("keeps answers streaming side by side apart (one cache, many messages)", () => {
    const reuse = new PrefixReuse(parseWhole);
    const texts = [AGENT_ANSWER, TRICKY.join("\n\n"), AGENT_ANSWER.replace(/the/g, "a")];
    for (let cut = 50; cut < 2000; cut += 50) for (const text of texts) streamAndCompare(reuse, text, [Math.min(cut, text.length)]);
  });

  it("parses a text with a link definition whole (a definition reaches back to earlier blocks)", () => {
    let parsedChars = 0;
    const reuse = new PrefixReuse((markdown: string): Parsed => {
      parsedChars += markdown.length;
      return parseWhole(markdown);
    });
    const text = `see [docs]\n\n${"filler paragraph\n\n".repeat(20)}[docs]: https://example.com\n`;
    streamAndCompare(reuse, text, [text.length - 40, text.length]);
    const tree = reuse.parse(text).tree;
    expect(JSON.stringify(tree)).toContain('"type":"link","url":"https://example.com"');
    expect(parsedChars).toBeGreaterThan(text.length * 2);
  });
});

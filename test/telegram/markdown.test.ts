import { describe, expect, it } from "vitest";
import { markdownToTelegramHtml } from "../../src/platforms/telegram/markdown.js";
import { renderForTelegram, splitMarkdown, TELEGRAM_MAX_TEXT_CHARS } from "../../src/platforms/telegram/split.js";
import { parseTelegramHtml } from "../fakes/telegram/telegram-html.js";

const visible = (html: string) => {
  const parsed = parseTelegramHtml(html);
  if (!parsed.ok) throw new Error(`${parsed.error}\n${html}`);
  return parsed.text;
};

describe("markdown → Telegram HTML", () => {
  it("renders inline styles and escapes markup characters", () => {
    expect(markdownToTelegramHtml("**bold** _it_ ~~gone~~ `a<b>&c` 1 < 2 & 3 > 2")).toBe(
      "<b>bold</b> <i>it</i> <s>gone</s> <code>a&lt;b&gt;&amp;c</code> 1 &lt; 2 &amp; 3 &gt; 2",
    );
  });

  it("renders a code fence with its language, unescaped content preserved", () => {
    const html = markdownToTelegramHtml("```ts\nif (a < b && c) {\n  x();\n}\n```");
    expect(html).toBe('<pre><code class="language-ts">if (a &lt; b &amp;&amp; c) {\n  x();\n}</code></pre>');
    expect(visible(html)).toBe("if (a < b && c) {\n  x();\n}");
  });

  it("renders nested lists with bullets and indentation", () => {
    const html = markdownToTelegramHtml("- one\n- two\n  - inner **b**\n    1. deep\n- [x] done");
    expect(visible(html)).toBe("• one\n• two\n  ◦ inner b\n    1. deep\n• ☑ done");
  });

  it("keeps links with safe schemes and shows the target of others", () => {
    expect(markdownToTelegramHtml('[site](https://example.com/?a=1&b="2")')).toBe('<a href="https://example.com/?a=1&amp;b=&quot;2&quot;">site</a>');
    expect(markdownToTelegramHtml("[file](src/a.ts)")).toBe("file (src/a.ts)");
  });

  it("renders headings bold, raw HTML as text, tables as monospace", () => {
    const html = markdownToTelegramHtml("# Title\n\n<div>x</div>\n\n| a | bb |\n|---|---|\n| 1 | 2 |");
    expect(html).toContain("<b>Title</b>");
    expect(html).toContain("&lt;div&gt;x&lt;/div&gt;");
    expect(visible(html)).toContain("a | bb\n--|---\n1 | 2");
  });

  it("does not nest a style inside the same style", () => {
    expect(markdownToTelegramHtml("# Title with **bold**")).toBe("<b>Title with bold</b>");
    expect(markdownToTelegramHtml("*outer *inner* outer*")).toBe("<i>outer inner outer</i>");
    expect(markdownToTelegramHtml("**bold _and italic_**")).toBe("<b>bold <i>and italic</i></b>");
  });

  it("never nests blockquotes (Telegram refuses them)", () => {
    const html = markdownToTelegramHtml("> outer\n> > inner\n> > > deeper");
    expect(() => visible(html)).not.toThrow();
  });

  it.each([
    "*unclosed emphasis and <tag> & stuff",
    "```\nunterminated fence <x>",
    "[link **with** `code`](https://x.y) and ![img](https://x.y/i.png)",
    "1. a\n\n   para\n\n   ```\n   code\n   ```\n2. b",
    "> quote with ```code``` and [ref][r]\n\n[r]: https://example.com",
    "Footnote[^1]\n\n[^1]: note <here>",
    "- [ ] todo\n- [x] done\n\n---\n\n***x***",
  ])("produces HTML Telegram accepts: %s", (markdown) => {
    expect(visible(markdownToTelegramHtml(markdown)).length).toBeGreaterThan(0);
  });
});

describe("splitting", () => {
  it("splits at paragraph boundaries, in order, under the limit", () => {
    const paragraphs = Array.from({ length: 40 }, (_, i) => `Paragraph ${i} ${"word ".repeat(50)}`.trim());
    const pieces = splitMarkdown(paragraphs.join("\n\n"), 3000);
    expect(pieces.length).toBeGreaterThan(3);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(3000);
    expect(pieces.join("\n\n")).toBe(paragraphs.join("\n\n"));
  });

  it("closes a code fence cut in two and reopens it with its language", () => {
    const code = Array.from({ length: 300 }, (_, i) => `line ${i} <${i}>`).join("\n");
    const pieces = splitMarkdown(`Intro\n\n\`\`\`python\n${code}\n\`\`\`\n\nOutro`, 2000);
    expect(pieces.length).toBeGreaterThan(1);
    for (const [index, piece] of pieces.entries()) {
      const fences = piece.split("\n").filter((line) => line.startsWith("```"));
      expect(fences.length % 2, `piece ${index} has balanced fences`).toBe(0);
      if (index > 0 && index < pieces.length - 1) expect(piece.startsWith("```python\n")).toBe(true);
    }
    const rendered = pieces.map((piece) => visible(markdownToTelegramHtml(piece))).join("\n");
    for (let i = 0; i < 300; i++) expect(rendered).toContain(`line ${i} <${i}>`);
  });

  it("renders a 10 KB text into pieces Telegram accepts, in order", () => {
    const markdown = Array.from({ length: 260 }, (_, i) => `${i}. item **${i}** with <angle> & text`).join("\n");
    expect(markdown.length).toBeGreaterThan(9000);
    const pieces = renderForTelegram(markdown);
    expect(pieces.length).toBeGreaterThan(2);
    const texts = pieces.map((piece) => visible(piece.html));
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(TELEGRAM_MAX_TEXT_CHARS);
    const all = texts.join("\n");
    let last = -1;
    for (let i = 0; i < 260; i++) {
      const at = all.indexOf(`item ${i} with`);
      expect(at).toBeGreaterThan(last);
      last = at;
    }
  });

  // Fence balance over random texts is tested with the shared splitter in test/render/split.test.ts.

  it("never cuts an emoji in two", () => {
    const text = "😀".repeat(3000);
    for (const pieces of [renderForTelegram(text).map((piece) => piece.markdown), splitMarkdown(text, 1001)]) {
      expect(pieces.join("")).toBe(text);
      for (const piece of pieces) expect(piece).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
    }
  });

  it("splits a single enormous line", () => {
    const pieces = renderForTelegram("x".repeat(10_000));
    expect(pieces.map((piece) => piece.markdown).join("")).toBe("x".repeat(10_000));
    for (const piece of pieces) expect(piece.markdown.length).toBeLessThanOrEqual(TELEGRAM_MAX_TEXT_CHARS);
  });
});

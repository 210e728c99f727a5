import { describe, expect, it } from "vitest";
import { markdownToTelegramHtml } from "../../../src/platforms/telegram/markdown.js";
import { parseTelegramHtml } from "../../fakes/telegram/telegram-html.js";
import { expectStreamedRendersFresh } from "../../support/streamed-render.js";

const visible = (html: string) => {
  const parsed = parseTelegramHtml(html);
  if (!parsed.ok) throw new Error(`${parsed.error}\n${html}`);
  return parsed.text;
};

describe("markdown → Telegram HTML", () => {
  it("renders inline styles and escapes markup characters", () => {
    expect(markdownToTelegramHtml("**bold** _it_ ~~gone~~ `a<b>&c` 1 < 2 & 3 > 2")).toBe("<b>bold</b> <i>it</i> <s>gone</s> <code>a&lt;b&gt;&amp;c</code> 1 &lt; 2 &amp; 3 &gt; 2");
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

it("renders a streamed answer at every edit as a render of the whole text at that point would", async () => {
  await expectStreamedRendersFresh(markdownToTelegramHtml, async () => (await import("../../../src/platforms/telegram/markdown.js")).markdownToTelegramHtml);
});

// The web chat's markdown → HTML: agent output is untrusted, so nothing in it may become markup
// of its own; what markdown means (code, lists, tables, links) must still show.
import { describe, expect, it } from "vitest";
import { markdownToHtml, renderMessageHtml } from "../../../src/platforms/web/render.js";
import { STYLESHEET } from "../../../src/platforms/web/styles.js";

describe("web chat rendering", () => {
  it("shows raw HTML from the agent as text", () => {
    const html = markdownToHtml('Look: <script>alert("x")</script>\n\n<img src=x onerror=alert(1)>\n\n<div onclick="x()">hi</div>');
    expect(html).not.toMatch(/<script|<img|<div/i);
    // `<` and `&` are what text needs escaped; `>` and quotes are text as they are.
    expect(html).toContain('&lt;script>alert("x")&lt;/script>');
    expect(html).toContain("&lt;img src=x onerror=alert(1)>");
  });

  it("keeps only http(s) and mailto links clickable, and never lets a URL out of its attribute", () => {
    const html = markdownToHtml('[a](javascript:alert(1)) [b](data:text/html,x) [c](https://example.com/?q="><script>) [d](mailto:ops@example.com) [e](/relative)');
    expect(html).not.toContain("javascript:");
    expect(html).not.toContain('href="data:');
    expect(html).not.toContain('href="/relative"');
    // Percent-encoded: no quote or angle bracket is left in the attribute to escape.
    expect(html).toContain('<a href="https://example.com/?q=%22%3E%3Cscript%3E" target="_blank" rel="noopener noreferrer">c</a>');
    expect(html).toContain('<a href="mailto:ops@example.com"');
    expect(html).toBe(`<p>a b ${html.slice(html.indexOf("<a "), html.lastIndexOf("</a>") + 4)} e</p>`);
  });

  it("turns images into links instead of loading them", () => {
    const html = markdownToHtml("![diagram](https://example.com/d.png)");
    expect(html).not.toContain("<img");
    expect(html).toContain('<a href="https://example.com/d.png"');
  });

  it("renders code blocks escaped, with a sanitised language label", () => {
    const html = markdownToHtml('```ts"><script>\nconst a = "<b>";\n```');
    expect(html).toContain("<pre><code");
    expect(html).toContain('const a = "&lt;b>";');
    expect(html).not.toContain("<script>");
    expect(html).toContain('<code class="language-tsscript">');
  });

  it("renders GFM: tables, task lists, strikethrough, and keeps line breaks", () => {
    const html = markdownToHtml("| a | b |\n|---|--:|\n| 1 | 2 |\n\n- [x] done\n- [ ] open\n\n~~old~~\nnext line");
    expect(html).toContain('<table><thead><tr><th>a</th><th class="align-right">b</th></tr></thead><tbody><tr><td>1</td><td class="align-right">2</td></tr></tbody></table>');
    expect(html).toContain('<li class="task-item"><span class="task task-done"></span>done</li>');
    expect(html).toContain("<del>old</del><br>next line");
  });

  it("shows a plan as a checklist and tool calls as compact lines", () => {
    const plan = renderMessageHtml("**Plan**\n☑ Read the code\n▶ Write the `change`\n☐ Run the tests", "plan");
    expect(plan).toContain('<li class="plan-completed">');
    expect(plan).toContain('<li class="plan-in_progress"><span class="plan-mark" aria-label="in progress"></span>Write the <code>change</code></li>');
    expect(plan).toContain('<li class="plan-pending">');
    const tools = renderMessageHtml("📖 Read <src> ✅\n▶️ Run `npm test` ⏳", "tool");
    expect(tools).toBe('<div class="tools"><div class="tool-line">📖 Read &lt;src> ✅</div><div class="tool-line">▶️ Run <code>npm test</code> ⏳</div></div>');
  });

  it("shows what the user typed, and plain-format messages, exactly as text", () => {
    expect(renderMessageHtml("**not bold** <b>", "user")).toBe('<p class="plain">**not bold** &lt;b&gt;</p>');
    expect(renderMessageHtml("a_b_ <i>", "notice", "plain")).toBe('<p class="plain">a_b_ &lt;i&gt;</p>');
  });

  it("emits only classes the page's stylesheet styles (language-* names the code; two keep the default look)", () => {
    const html = [
      markdownToHtml("- [x] a\n- [ ] b\n\n| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 | 3 |\n\n```ts\nx\n```\n\nnote[^1]\n\n[^1]: n"),
      renderMessageHtml("**Plan**\n☑ a\n▶ b\n☐ c", "plan"),
      renderMessageHtml("📖 Read ✅", "tool"),
      renderMessageHtml("typed", "user"),
    ].join("");
    const classes = new Set([...html.matchAll(/class="([^"]*)"/g)].flatMap((m) => m[1].split(" ")));
    expect(classes.size).toBeGreaterThan(15);
    const defaultLook = ["align-left", "plan-pending"];
    const unstyled = [...classes].filter((c) => !c.startsWith("language-") && !defaultLook.includes(c) && !new RegExp(`\\.${c}\\b`).test(STYLESHEET));
    expect(unstyled).toEqual([]);
  });
});

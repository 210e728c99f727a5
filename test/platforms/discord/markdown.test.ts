// Markdown → Discord's dialect: what Discord renders stays, what it does not is reshaped, and
// Discord-only markup in plain text is escaped.
import { describe, expect, test } from "vitest";
import { markdownToDiscord } from "../../../src/platforms/discord/markdown.js";

describe("markdown → Discord", () => {
  test("inline styles, code and headings Discord knows pass through", () => {
    expect(markdownToDiscord("# Title\n\nsome *em*, **strong**, ~~gone~~ and `code`")).toBe("# Title\n\nsome *em*, **strong**, ~~gone~~ and `code`");
    expect(markdownToDiscord("```ts\nconst a = 1;\n```")).toBe("```ts\nconst a = 1;\n```");
  });

  test("headings deeper than ### become bold lines; a rule becomes a line of box characters", () => {
    expect(markdownToDiscord("#### Deep\n\n---\n\nafter")).toBe("**Deep**\n\n──────────\n\nafter");
  });

  test("lists keep their markers and nesting; task items show boxes", () => {
    expect(markdownToDiscord("* a\n* b\n  1. x\n  2. y")).toBe("- a\n- b\n  1. x\n  2. y");
    expect(markdownToDiscord("- [x] done\n- [ ] todo")).toBe("- ☑ done\n- ☐ todo");
  });

  test("a table becomes an aligned code block", () => {
    expect(markdownToDiscord("| name | n |\n|---|---|\n| alpha | 1 |\n| b | 22 |")).toBe("```\nname  | n\n------|---\nalpha | 1\nb     | 22\n```");
  });

  test("links: http(s) masked, bare URLs kept, reference links resolved, images as links, other schemes as text", () => {
    expect(markdownToDiscord("[docs](https://example.com/a) and https://example.com/b")).toBe("[docs](https://example.com/a) and <https://example.com/b>");
    expect(markdownToDiscord("see [the spec][s]\n\n[s]: https://example.com/spec")).toBe("see [the spec](https://example.com/spec)");
    expect(markdownToDiscord("![a chart](https://example.com/c.png)")).toBe("[a chart](https://example.com/c.png)");
    expect(markdownToDiscord("[file](./src/a.ts)")).toBe("file (./src/a.ts)");
  });

  test("Discord-only markup in text is escaped: spoilers, underline inside words, subtext", () => {
    expect(markdownToDiscord("a ||secret|| here")).toBe("a \\||secret\\|| here");
    expect(markdownToDiscord("foo__bar__baz")).toBe("foo\\__bar\\__baz");
    expect(markdownToDiscord("-# not small")).toBe("\\-# not small");
    expect(markdownToDiscord("snake_case_name stays")).toBe("snake_case_name stays");
  });

  test("literal markdown characters stay literal", () => {
    expect(markdownToDiscord("\\*not em\\* and 2 * 3")).toBe("\\*not em\\* and 2 \\* 3");
  });

  test("quotes do not nest; a hard break is a plain newline", () => {
    expect(markdownToDiscord("> outer\n>\n> > inner")).toBe("> outer\n>\n> inner");
    expect(markdownToDiscord("one  \ntwo")).toBe("one\ntwo");
  });

  test("three backticks inside code cannot close the fence", () => {
    const out = markdownToDiscord("````\nbefore\n```\nafter\n````");
    expect(out.startsWith("```\n")).toBe(true);
    expect(out.endsWith("\n```")).toBe(true);
    expect(out.slice(4, -4)).not.toContain("```");
  });

  test("HTML and footnotes show as text", () => {
    // Discord drops the backslash before any punctuation.
    expect(markdownToDiscord("a <b>bold</b> tag")).toBe("a \\<b>bold\\</b> tag");
    expect(markdownToDiscord("claim[^1]\n\n[^1]: the source")).toBe("claim\\[1]\n\n\\[1]: the source");
  });
});

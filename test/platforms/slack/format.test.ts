// Pure pieces: route keys, markdown → mrkdwn, section splitting, Slack text → plain text.
import { describe, expect, test } from "vitest";
import { removeMentions } from "../../../src/core/conversation/addressing.js";
import { renderOutbound, splitForSections } from "../../../src/platforms/slack/blocks.js";
import { slackTextToPlain, slashCommandText } from "../../../src/platforms/slack/inbound.js";
import { markdownToMrkdwn } from "../../../src/platforms/slack/mrkdwn.js";
import { formatSlackRoute, parseSlackRoute } from "../../../src/platforms/slack/routes.js";
import { slackConfigSchema } from "../../../src/platforms/slack/config.js";
import { expectStreamedRendersFresh } from "../../support/streamed-render.js";

describe("Slack routes", () => {
  test.each(["slack:T0FAKE/C0GENERAL", "slack:T0FAKE/C0GENERAL:1700000000.000100", "slack_acme:E0GRID/D0ALICE:1700000001.123456"])("%s round-trips", (key) => {
    const parsed = parseSlackRoute(key);
    expect(parsed).toBeDefined();
    expect(formatSlackRoute(parsed!)).toBe(key);
  });

  test("parts are named", () => {
    expect(parseSlackRoute("slack:T1/C2:1700000000.0001")).toEqual({ instance: "slack", team: "T1", channel: "C2", threadTs: "1700000000.0001" });
    expect(parseSlackRoute("slack:T1/C2")).toEqual({ instance: "slack", team: "T1", channel: "C2" });
  });

  test.each(["telegram:42", "slack:T1", "slack:T1/C2:notats", "slack:t1/c2", "slack:T1/C2:1.2:3"])("%s is not a Slack route", (key) => {
    expect(parseSlackRoute(key)).toBeUndefined();
  });
});

describe("Slack config", () => {
  test("listen_all_in takes Slack routes only, and socket mode needs an app token", () => {
    const base = { bot_token: "xoxb-1", app_token: "xapp-1" };
    expect(slackConfigSchema.parse({ ...base, listen_all_in: ["slack:T1/C2"] }).listen_all_in).toEqual(["slack:T1/C2"]);
    expect(slackConfigSchema.safeParse({ ...base, listen_all_in: ["#general"] }).success).toBe(false);
    expect(slackConfigSchema.safeParse({ bot_token: "xoxb-1" }).success).toBe(false);
    expect(slackConfigSchema.safeParse({ bot_token: "xoxb-1", mode: "http", signing_secret: "s" }).success).toBe(true);
  });
});

describe("markdown → mrkdwn", () => {
  test("emphasis, strike, inline code and escaping", () => {
    expect(markdownToMrkdwn("**bold** _it_ ~~gone~~ `a<b` & <tag>")).toBe("*bold* _it_ ~gone~ `a&lt;b` &amp; &lt;tag&gt;");
  });

  test("links become <url|label>; bare URLs stay links; a | in a label cannot end it", () => {
    expect(markdownToMrkdwn("[the docs](https://x.example/a?b=1&c=2)")).toBe("<https://x.example/a?b=1&amp;c=2|the docs>");
    expect(markdownToMrkdwn("see https://x.example")).toBe("see <https://x.example>");
    expect(markdownToMrkdwn("[a|b](https://x.example)")).toBe("<https://x.example|a¦b>");
    expect(markdownToMrkdwn("[ref][1]\n\n[1]: https://r.example")).toBe("<https://r.example|ref>");
  });

  test("code fences keep their content verbatim (escaped), without the language tag", () => {
    const md = "Before:\n\n```ts\nconst x = a < b && **c**;\n  indented\n```\n\nAfter.";
    expect(markdownToMrkdwn(md)).toBe("Before:\n\n```\nconst x = a &lt; b &amp;&amp; **c**;\n  indented\n```\n\nAfter.");
  });

  test("nested lists are indented with distinct bullets; ordered lists keep numbers; tasks get boxes", () => {
    const md = "- one\n  - two **b**\n    - three\n- four\n\n3. c\n4. d\n\n- [ ] todo\n- [x] done";
    expect(markdownToMrkdwn(md)).toBe(["• one", "    ◦ two *b*", "        ▪ three", "• four", "", "3. c", "4. d", "", "• ☐ todo", "• ☑ done"].join("\n"));
  });

  test("headings, quotes, rules and tables", () => {
    expect(markdownToMrkdwn("# Title\n\n> quoted\n> more\n\n---")).toBe("*Title*\n\n> quoted\n> more\n\n──────────");
    expect(markdownToMrkdwn("| a | bb |\n|---|---|\n| 1 | 2 |")).toBe("```\na | bb\n--|---\n1 | 2\n```");
  });
});

describe("section splitting", () => {
  test("short text is one section", () => {
    expect(splitForSections("hello")).toEqual(["hello"]);
  });

  test("long text splits on lines, every piece within the limit, nothing lost", () => {
    const lines = Array.from({ length: 400 }, (_, i) => `line ${i} ${"x".repeat(20)}`);
    const pieces = splitForSections(lines.join("\n"));
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(3000);
    expect(pieces.join("\n")).toBe(lines.join("\n"));
  });

  test("a code block cut in two is closed and reopened", () => {
    const code = Array.from({ length: 300 }, (_, i) => `code line ${i}`).join("\n");
    const pieces = splitForSections(`intro\n\`\`\`\n${code}\n\`\`\`\noutro`, 1000);
    expect(pieces.length).toBeGreaterThan(2);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(1000);
      expect((piece.match(/```/g) ?? []).length % 2).toBe(0);
    }
    expect(pieces[pieces.length - 1].endsWith("outro")).toBe(true);
  });

  test("a single over-long line is hard-cut", () => {
    const pieces = splitForSections("y".repeat(7000));
    expect(pieces.map((p) => p.length).reduce((a, b) => a + b)).toBe(7000);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(3000);
  });

  test("a message whose mrkdwn outgrows 3000 chars becomes several sections", () => {
    const body = renderOutbound({ text: "a & b\n".repeat(600) });
    const sections = body.blocks.filter((b) => b.type === "section");
    expect(sections.length).toBeGreaterThan(1);
    expect(body.text.length).toBeLessThanOrEqual(300);
    expect(body.text).not.toMatch(/&[a-z]+…$/);
  });
});

describe("message rendering", () => {
  test("progress lines are quiet context blocks; answers are sections; buttons follow", () => {
    expect(renderOutbound({ kind: "tool", text: "▶️ Run `ls` ✅" }).blocks).toEqual([{ type: "context", elements: [{ type: "mrkdwn", text: "▶️ Run `ls` ✅" }] }]);
    const approval = renderOutbound({ kind: "approval", text: "Allow?", buttons: [[{ id: "a", label: "Yes", style: "primary" }]] });
    expect(approval.blocks.map((b) => b.type)).toEqual(["section", "actions"]);
    // Plain (the resend after a refused formatting): the words in `text`, escaped, no section blocks.
    expect(renderOutbound({ text: "*not bold* <x>", format: "plain" })).toEqual({ text: "*not bold* &lt;x&gt;", blocks: [] });
  });
});

describe("Slack text → plain text", () => {
  test("the bot's mention becomes its name, others stay readable, entities unescaped", () => {
    expect(slackTextToPlain("<@U0BATON> ask <@U0BOB> in <#C1|general> about <https://x.example|this> &amp; <mailto:a@b.c|a@b.c> <!here>", "U0BATON", "@baton")).toBe(
      "@baton ask @U0BOB in #general about this (https://x.example) & a@b.c @here",
    );
  });

  test("with the core's mention removal, a leading mention with a colon or comma leaves just the request", () => {
    const request = (text: string) => removeMentions(slackTextToPlain(text, "U0BATON", "@baton"), ["@baton"]);
    expect(request("<@U0BATON>: /status")).toBe("/status");
    expect(request("  <@U0BATON|baton>, fix it")).toBe("fix it");
    expect(request("ping <@U0BATON>: now")).toBe("ping: now");
  });

  test("/baton <cmd> is /<cmd>; bare /baton is /help", () => {
    expect(slashCommandText("status")).toBe("/status");
    expect(slashCommandText("  new claude ~/x ")).toBe("/new claude ~/x");
    expect(slashCommandText("")).toBe("/help");
    expect(slashCommandText("/stop")).toBe("/stop");
  });
});

test("a streamed answer renders at every edit as a render of the whole text at that point would", async () => {
  await expectStreamedRendersFresh(markdownToMrkdwn, async () => (await import("../../../src/platforms/slack/mrkdwn.js")).markdownToMrkdwn);
});

// The Discord adapter's pure translations: slash commands ↔ chat commands, outbound messages →
// Discord message bodies, gateway messages → facts for the core.
import { describe, expect, test } from "vitest";
import { commandDefinitions, commandText } from "../../../src/platforms/discord/commands.js";
import { botMentions, messageFacts } from "../../../src/platforms/discord/parse.js";
import { ContentTooLongError, renderMessage } from "../../../src/platforms/discord/render.js";
import { validateCommands, validateMessageBody } from "../../fakes/discord/validate.js";

const COMMANDS = ["help", "status", "new", "close", "pickup", "handover", "session", "switch", "workspace", "stop", "allow", "deny"].map((name) => ({ name, description: `the ${name} command` }));
const option = (name: string, value: string) => ({ name, type: 3, value }) as const;

describe("slash commands", () => {
  test("the definitions pass Discord's checks; /baton offers the commands as choices", () => {
    const definitions = commandDefinitions(COMMANDS) as any[];
    expect(validateCommands(definitions)).toBeUndefined();
    expect(definitions.map((d) => d.name)).toEqual(["baton", "status", "new", "stop", "pickup", "switch"]);
    expect(definitions[0].options[0].choices.map((c: any) => c.value)).toEqual(COMMANDS.map((c) => c.name));
    const many = Array.from({ length: 30 }, (_, i) => ({ name: `c${i}`, description: "x" }));
    expect((commandDefinitions(many) as any[])[0].options[0].choices).toBeUndefined();
  });

  test("an invocation becomes the chat command's text", () => {
    expect(commandText("status")).toBe("/status");
    expect(commandText("pickup", [option("code", "K7PQ")])).toBe("/pickup K7PQ");
    expect(commandText("switch", [option("agent", "claude+fast")])).toBe("/switch claude+fast");
    expect(commandText("new", [option("workspace", "api")])).toBe("/new api");
    expect(commandText("new", [option("agent", "codex"), option("workspace", "api")])).toBe("/new codex api");
    expect(commandText("baton", [option("command", "session"), option("args", "--switch 01abcd")])).toBe("/session --switch 01abcd");
    expect(commandText("baton", [option("command", "/help")])).toBe("/help");
    expect(commandText("somebody-elses")).toBeUndefined();
  });
});

describe("outbound messages", () => {
  test("markdown in Discord's dialect, no pings, no link previews", () => {
    const body = renderMessage({ text: "**done** — see https://example.com @everyone" });
    expect(body).toEqual({ content: "**done** — see <https://example.com> @everyone", components: [], allowed_mentions: { parse: [], replied_user: false }, flags: 4 });
    expect(validateMessageBody(body, { create: true })).toBeUndefined();
  });

  test("plain text is sent as it is", () => {
    expect(renderMessage({ text: "a *b* | c", format: "plain" }).content).toBe("a *b* | c");
  });

  test("buttons become action rows of at most five, with Discord's styles; Discord accepts them", () => {
    const buttons = [
      [
        { id: "ap:1:allow", label: "Allow once", style: "primary" as const },
        { id: "ap:1:always", label: "Always allow" },
        { id: "ap:1:reject", label: "Reject", style: "danger" as const },
      ],
    ];
    const body = renderMessage({ text: "May I run `ls`?", buttons });
    expect(body.components).toEqual([
      {
        type: 1,
        components: [
          { type: 2, style: 1, label: "Allow once", custom_id: "ap:1:allow" },
          { type: 2, style: 2, label: "Always allow", custom_id: "ap:1:always" },
          { type: 2, style: 4, label: "Reject", custom_id: "ap:1:reject" },
        ],
      },
    ]);
    expect(validateMessageBody(body, { create: true })).toBeUndefined();
    const seven = renderMessage({ text: "pick", buttons: [Array.from({ length: 7 }, (_, i) => ({ id: `b${i}`, label: "x".repeat(90) }))] });
    expect(seven.components.map((row) => row.components.length)).toEqual([5, 2]);
    expect(seven.components[0].components[0].label).toHaveLength(80);
    expect(validateMessageBody(seven, { create: true })).toBeUndefined();
  });

  test("an empty text is not an empty message; a text that grew past 2000 characters says so", () => {
    expect(validateMessageBody(renderMessage({ text: "" }), { create: true })).toBeUndefined();
    // A table pads every row to its widest cell: 700 characters of markdown, 5,000 rendered.
    const table = `| a | b |\n|---|---|\n| ${"w".repeat(500)} | b |\n${"| x | y |\n".repeat(10)}`;
    expect(table.length).toBeLessThan(2000);
    expect(() => renderMessage({ text: table })).toThrow(ContentTooLongError);
  });
});

describe("inbound facts", () => {
  const BOT = "111111111111111111";
  const base = {
    id: "222222222222222222",
    channel_id: "333333333333333333",
    guild_id: "444444444444444444",
    type: 0,
    author: { id: "555555555555555555", username: "alice", global_name: "Alice", discriminator: "0", avatar: null },
    content: `<@${BOT}> look at <@!${BOT}> this`,
    attachments: [{ id: "6", filename: "log.txt", content_type: "text/plain", size: 12, url: "http://127.0.0.1/attachments/x", proxy_url: "" }],
    channel_type: 11,
  } as any;

  test("a person's message: mentions as written, the thread hint, attachments", () => {
    expect(messageFacts(base, BOT)).toEqual({
      messageId: base.id,
      channelId: base.channel_id,
      guildId: base.guild_id,
      userId: base.author.id,
      userName: "Alice",
      text: base.content,
      direct: false,
      channelType: 11,
      mentions: [`<@${BOT}>`, `<@!${BOT}>`],
      replyToBot: false,
      attachments: [{ name: "log.txt", mimeType: "text/plain", size: 12, url: "http://127.0.0.1/attachments/x" }],
    });
  });

  test("a DM, a reply to the bot; bots, webhooks and system messages are not people", () => {
    const dm = messageFacts({ ...base, guild_id: undefined, content: "hi", referenced_message: { author: { id: BOT } } }, BOT)!;
    expect([dm.direct, dm.replyToBot, dm.mentions]).toEqual([true, true, []]);
    expect(messageFacts({ ...base, author: { ...base.author, bot: true } }, BOT)).toBeUndefined();
    expect(messageFacts({ ...base, webhook_id: "9" }, BOT)).toBeUndefined();
    expect(messageFacts({ ...base, type: 7 }, BOT)).toBeUndefined();
  });

  test("another user's mention is not the bot's", () => {
    expect(botMentions("<@123456789012345678> and <@1111111111111111119>", BOT)).toEqual([]);
  });
});

describe("config", () => {
  test("defaults, and mistakes named with what would work", async () => {
    const { discordConfigSchema } = await import("../../../src/platforms/discord/config.js");
    expect(discordConfigSchema.parse({ token: "t" })).toMatchObject({ threads: "auto", guilds: [], listen_all_in: [], max_file_bytes: 20 * 1024 * 1024, enabled: true });
    const badRoute = discordConfigSchema.safeParse({ token: "t", listen_all_in: ["#general"] });
    expect(badRoute.error?.issues[0].message).toBe("not a Discord route: use discord:<channel or thread id>");
    const badGuild = discordConfigSchema.safeParse({ token: "t", guilds: ["my server"] });
    expect(badGuild.error?.issues[0].message).toMatch(/a Discord id: 17–20 digits/);
    expect(discordConfigSchema.safeParse({ token: "t", threads: "always" }).success).toBe(false);
    expect(discordConfigSchema.safeParse({ token: "t", bot_token: "x" }).success).toBe(false);
  });
});

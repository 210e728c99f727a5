// `baton doctor` for Discord against the fake: the token, the MessageContent intent with its fix,
// the configured servers, and the invite URL with exactly the permissions Baton needs.
import { afterEach, describe, expect, test } from "vitest";
import { ApplicationFlags, GatewayIntentBits, PermissionFlagsBits } from "discord.js";
import { checkDiscordCredentials } from "../../../src/platforms/discord/doctor.js";
import { GATEWAY_INTENTS, INVITE_PERMISSIONS, MESSAGE_CONTENT_FLAGS, invitePermissionBits } from "../../../src/platforms/discord/permissions.js";
import { FakeDiscord } from "../../fakes/discord/index.js";

describe("Discord doctor", () => {
  let fake: FakeDiscord;
  afterEach(async () => fake?.stop());

  test("a good setup: token, intent on, and the invite URL with the five permissions and both scopes", async () => {
    fake = await new FakeDiscord().start();
    const report = await checkDiscordCredentials({ token: fake.token, api_url: fake.apiUrl });
    expect(report.ok).toBe(true);
    expect(report.lines[0]).toBe(`token: ok, @Baton (id ${fake.bot.id})`);
    expect(report.lines).toContain("Message Content Intent: on");
    const invite = new URL(report.lines.find((line) => line.startsWith("invite URL: "))!.slice("invite URL: ".length));
    expect(invite.origin + invite.pathname).toBe("https://discord.com/oauth2/authorize");
    expect(invite.searchParams.get("client_id")).toBe(fake.world.applicationId);
    expect(invite.searchParams.get("scope")).toBe("bot applications.commands");
    const wanted =
      PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages | PermissionFlagsBits.ReadMessageHistory | PermissionFlagsBits.CreatePublicThreads | PermissionFlagsBits.SendMessagesInThreads;
    expect(invite.searchParams.get("permissions")).toBe(wanted.toString());
    expect(fake.calls.map((c) => `${c.method} ${c.path}`)).toEqual(["GET /users/@me", "GET /applications/@me"]);
  });

  test("the MessageContent intent switched off is a failure that says where to switch it on", async () => {
    fake = await new FakeDiscord({ messageContentIntent: false }).start();
    const report = await checkDiscordCredentials({ token: fake.token, api_url: fake.apiUrl });
    expect(report.ok).toBe(false);
    expect(report.lines.join("\n")).toMatch(/Message Content Intent: off.*Bot → Privileged Gateway Intents → Message Content Intent/);
  });

  test("a refused token says so and how to get a new one, without printing it", async () => {
    fake = await new FakeDiscord().start();
    const report = await checkDiscordCredentials({ token: "not-the-token", api_url: fake.apiUrl });
    expect(report).toEqual({ ok: false, lines: ["token: refused by Discord (401 Unauthorized) — copy the bot token again (Developer Portal → Bot → Reset Token)"] });
  });

  test("configured servers the bot is not in, and a wrong application_id, fail with the fix", async () => {
    fake = await new FakeDiscord().start();
    const report = await checkDiscordCredentials({ token: fake.token, api_url: fake.apiUrl, guilds: [fake.guild.id, "123456789012345678"], application_id: "876543210987654321" });
    expect(report.ok).toBe(false);
    const text = report.lines.join("\n");
    expect(text).toContain("guilds: the bot is not in 123456789012345678 — invite it there: https://discord.com/oauth2/authorize?");
    expect(text).toContain(`application_id 876543210987654321 is not this token's application (${fake.world.applicationId})`);
  });

  test("Discord unreachable is reported, not thrown", async () => {
    const report = await checkDiscordCredentials({ token: "x", api_url: "http://127.0.0.1:1/api" });
    expect(report.ok).toBe(false);
    expect(report.lines[0]).toMatch(/^token: Discord could not be reached/);
  });

  test("the numbers Baton uses are discord.js's own", () => {
    expect(GATEWAY_INTENTS).toEqual({
      Guilds: GatewayIntentBits.Guilds,
      GuildMessages: GatewayIntentBits.GuildMessages,
      DirectMessages: GatewayIntentBits.DirectMessages,
      GuildMessageTyping: GatewayIntentBits.GuildMessageTyping,
      DirectMessageTyping: GatewayIntentBits.DirectMessageTyping,
      MessageContent: GatewayIntentBits.MessageContent,
    });
    for (const [name, bit] of Object.entries(INVITE_PERMISSIONS)) expect(bit).toBe(PermissionFlagsBits[name as keyof typeof PermissionFlagsBits]);
    expect(invitePermissionBits()).toBe(309_237_713_920n);
    expect(MESSAGE_CONTENT_FLAGS).toBe(ApplicationFlags.GatewayMessageContent | ApplicationFlags.GatewayMessageContentLimited);
  });
});

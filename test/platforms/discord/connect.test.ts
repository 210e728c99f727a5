// Connecting through discord.js: who we are, and the two failures a user must be told how to fix.
import { afterEach, describe, expect, test } from "vitest";
import { connectDiscord, type DiscordConnection, type DiscordEvents } from "../../../src/platforms/discord/client.js";
import { PlatformError } from "../../../src/kernel/errors.js";
import { FakeDiscord } from "../../fakes/discord/index.js";

const ignore: DiscordEvents = { messageCreate: () => undefined, interactionCreate: () => undefined, threadCreate: () => undefined };

describe("Discord connection", () => {
  let fake: FakeDiscord;
  let connection: DiscordConnection | undefined;
  afterEach(async () => {
    await connection?.close();
    connection = undefined;
    await fake?.stop();
  });

  test("connects with Guilds, GuildMessages, DirectMessages, MessageContent and the two typing intents and knows who it is", async () => {
    fake = await new FakeDiscord().start();
    connection = await connectDiscord({ token: fake.token, api_url: fake.apiUrl }, ignore, () => undefined);
    expect([connection.botUserId, connection.botName, connection.guildCount]).toEqual([fake.bot.id, "Baton", 1]);
    const identify = fake.gateway.frames.find((f) => f.from === "bot" && f.payload.op === 2)!;
    expect(identify.payload.d.intents).toBe(1 | 512 | 4096 | 32768 | 2048 | 16384);
  });

  test("the MessageContent intent off: a refusal that says where to switch it on", async () => {
    fake = await new FakeDiscord({ messageContentIntent: false }).start();
    const error = await connectDiscord({ token: fake.token, api_url: fake.apiUrl }, ignore, () => undefined).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect((error as PlatformError).reason).toBe("refused");
    expect((error as PlatformError).userMessage).toMatch(/Message Content Intent is off.*Bot → Privileged Gateway Intents → Message Content Intent/);
    expect(fake.gateway.closes).toEqual([4014]);
  });

  test("a wrong token: a refusal naming where to get the right one, without the token", async () => {
    fake = await new FakeDiscord().start();
    const error = await connectDiscord({ token: "wrong-token", api_url: fake.apiUrl }, ignore, () => undefined).catch((e: unknown) => e);
    expect((error as PlatformError).userMessage).toBe("Discord refused the bot token — copy it again (Developer Portal → Bot → Reset Token) into platforms.discord.token.");
    expect(JSON.stringify(error)).not.toContain("wrong-token");
  });

  test("nothing listening: a network failure", async () => {
    const error = await connectDiscord({ token: "t", api_url: "http://127.0.0.1:1/api" }, ignore, () => undefined).catch((e: unknown) => e);
    expect((error as PlatformError).reason).toBe("network");
  });
});

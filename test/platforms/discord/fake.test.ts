// discord.js 14 against the Discord fake: the SDK behaviours the adapter builds on, checked on the
// wire (login and intents, resume after a dropped socket, rate-limit buckets and 429s, deferred
// interactions, ephemeral replies, buttons, threads from a message, command registration, a second
// process on the same token). If discord.js changes any of these, this file says which.
import { afterEach, describe, expect, test } from "vitest";
import { Client, GatewayIntentBits, MessageFlags, Partials, RESTJSONErrorCodes, RateLimitError, Routes, type Interaction, type Message } from "discord.js";
import { FakeDiscord } from "../../fakes/discord/index.js";
import { eventually } from "../slack/helpers.js";

const INTENTS = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent, GatewayIntentBits.DirectMessages];

describe("discord.js against the Discord fake", () => {
  let fake: FakeDiscord;
  const clients: Client[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.destroy();
    await fake?.stop();
  });

  async function connect(options: { retries?: number; rejectOnRateLimit?: boolean } = {}): Promise<Client> {
    const client = new Client({
      intents: INTENTS,
      partials: [Partials.Channel],
      rest: { api: fake.apiUrl, retries: options.retries ?? 0, ...(options.rejectOnRateLimit ? { rejectOnRateLimit: () => true } : {}) },
    });
    clients.push(client);
    await client.login(fake.token);
    await eventually(() => client.isReady(), 10_000, "client ready");
    return client;
  }

  test("login: GET /v10/gateway/bot, IDENTIFY with the intents, READY, the guild and its channel cached; messages arrive", async () => {
    fake = await new FakeDiscord().start();
    const client = await connect();
    expect(fake.callsTo("GET /gateway/bot")).toHaveLength(1);
    const identify = fake.gateway.frames.find((f) => f.from === "bot" && f.payload.op === 2)!;
    expect(identify.payload.d.intents).toBe((1 << 0) | (1 << 9) | (1 << 15) | (1 << 12));
    expect(client.user?.id).toBe(fake.bot.id);
    expect(client.guilds.cache.get(fake.guild.id)?.channels.cache.has(fake.general.id)).toBe(true);

    const seen: Message[] = [];
    client.on("messageCreate", (message) => void seen.push(message));
    const alice = fake.addUser("alice");
    fake.say(alice, fake.general, "hello there", { mention: true });
    fake.dm(alice, "in private");
    await eventually(() => seen.length === 2, 5000, "two messages");
    expect(seen[0].content).toBe(`<@${fake.bot.id}> hello there`);
    expect(seen[0].mentions.users.has(fake.bot.id)).toBe(true);
    expect(seen[1].channel.isDMBased()).toBe(true);
    expect(seen[1].content).toBe("in private");
  });

  test("without the MessageContent intent switched on, the gateway closes 4014 and login rejects", async () => {
    fake = await new FakeDiscord({ messageContentIntent: false }).start();
    const client = new Client({ intents: INTENTS, rest: { api: fake.apiUrl, retries: 0 } });
    clients.push(client);
    await expect(client.login(fake.token)).rejects.toThrow(/disallowed intents/i);
    expect(fake.gateway.closes).toContain(4014);
  });

  test("a dropped socket is resumed: events lost in flight and sent while down are replayed once, in order", async () => {
    fake = await new FakeDiscord().start();
    const client = await connect();
    const seen: string[] = [];
    client.on("messageCreate", (message) => void seen.push(message.content));
    const alice = fake.addUser("alice");

    fake.say(alice, fake.general, "before");
    await eventually(() => seen.length === 1, 5000, "first message");
    fake.gateway.loseNextFrames(1);
    fake.say(alice, fake.general, "lost in flight");
    fake.gateway.drop();
    fake.say(alice, fake.general, "while down");
    await fake.gateway.waitForLive();
    fake.say(alice, fake.general, "after");
    await eventually(() => seen.length === 4, 10_000, "all four messages");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen).toEqual(["before", "lost in flight", "while down", "after"]);
    expect(fake.gateway.identifies).toBe(1);
    expect(fake.gateway.resumes).toBe(1);
  });

  test("a 429 on a message route: discord.js waits Retry-After then sends again; with rejectOnRateLimit it throws the wait instead", async () => {
    fake = await new FakeDiscord().start();
    const client = await connect();
    fake.rateLimitNext("POST /channels/:channel/messages", 1);
    await client.rest.post(Routes.channelMessages(fake.general.id), { body: { content: "patient" } });
    const posts = fake.callsTo("POST /channels/:channel/messages");
    expect(posts.map((c) => c.status)).toEqual([429, 200]);
    expect(posts[1].at - posts[0].at).toBeGreaterThanOrEqual(1000);

    const strict = await connect({ rejectOnRateLimit: true });
    fake.rateLimitNext("POST /channels/:channel/messages", 2.5);
    const error = await strict.rest.post(Routes.channelMessages(fake.general.id), { body: { content: "impatient" } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBeGreaterThanOrEqual(3000);
  });

  test("the per-channel bucket: discord.js paces itself by the X-RateLimit headers, so Discord never says 429", async () => {
    fake = await new FakeDiscord({ messageRateLimit: { limit: 2, windowMs: 600 } }).start();
    const client = await connect();
    await Promise.all([1, 2, 3, 4, 5].map((n) => client.rest.post(Routes.channelMessages(fake.general.id), { body: { content: `m${n}` } })));
    expect(fake.callsTo("POST /channels/:channel/messages").map((c) => c.status)).toEqual([200, 200, 200, 200, 200]);
    expect(fake.botMessages(fake.general.id).map((m) => m.content)).toEqual(["m1", "m2", "m3", "m4", "m5"]);
  });

  test("a slash command deferred (type 5) then answered by PATCH …/messages/@original; an ephemeral reply is seen by one person", async () => {
    fake = await new FakeDiscord().start();
    const client = await connect();
    await client.rest.put(Routes.applicationGuildCommands(fake.world.applicationId, fake.guild.id), {
      body: [{ name: "status", description: "Where this conversation stands", type: 1, options: [] }],
    });
    client.on("interactionCreate", async (interaction: Interaction) => {
      if (!interaction.isChatInputCommand()) return;
      if (interaction.commandName === "status") {
        await interaction.deferReply();
        await interaction.editReply("all quiet");
      } else await interaction.reply({ content: "not for you", flags: MessageFlags.Ephemeral });
    });
    const alice = fake.addUser("alice");
    const status = fake.slashCommand(alice, fake.general, "status");
    await eventually(() => status.original?.content === "all quiet", 5000, "edited reply");
    expect(status.acknowledgedWith).toBe(5);
    expect(status.original!.history).toEqual(["", "all quiet"]);
    expect(fake.callsTo("PATCH /webhooks/:app/:token/messages/@original")).toHaveLength(1);

    const other = fake.slashCommand(alice, fake.general, "other");
    await eventually(() => other.original, 5000, "ephemeral reply");
    expect(other.original!.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(fake.ephemeralsFor(alice.id).map((m) => m.content)).toEqual(["not for you"]);
    expect(fake.botMessages(fake.general.id).map((m) => m.content)).toEqual(["all quiet"]);
  });

  test("buttons: custom_id over 100 characters is refused; a press is answered by updating the message (type 7)", async () => {
    fake = await new FakeDiscord().start();
    const client = await connect();
    const row = (customId: string) => [{ type: 1, components: [{ type: 2, style: 1, label: "Allow", custom_id: customId }] }];
    const tooLong: any = await client.rest.post(Routes.channelMessages(fake.general.id), { body: { content: "x", components: row("a".repeat(101)) } }).catch((e: unknown) => e);
    expect(tooLong.code).toBe(RESTJSONErrorCodes.InvalidFormBodyOrContentType);

    await client.rest.post(Routes.channelMessages(fake.general.id), { body: { content: "May I?", components: row("ap:1:allow") } });
    client.on("interactionCreate", async (interaction) => {
      if (interaction.isButton()) await interaction.update({ content: `Allowed by ${interaction.user.username}`, components: [] });
    });
    const message = fake.botMessages(fake.general.id)[0];
    const press = fake.press(fake.addUser("alice"), message, "ap:1:allow");
    await eventually(() => press.acknowledgedWith === 7, 5000, "update");
    expect(message.content).toBe("Allowed by alice");
    expect(message.components).toEqual([]);
  });

  test("a thread started from a message takes the message's id; THREAD_CREATE reaches the client; the bot posts in it", async () => {
    fake = await new FakeDiscord().start();
    const client = await connect();
    const alice = fake.addUser("alice");
    const prompt = fake.say(alice, fake.general, "please look", { mention: true });
    const thread = (await client.rest.post(Routes.threads(fake.general.id, prompt.id), { body: { name: "please look", auto_archive_duration: 1440 } })) as { id: string };
    expect(thread.id).toBe(prompt.id);
    await eventually(() => client.channels.cache.get(thread.id), 5000, "thread cached");
    await client.rest.post(Routes.channelMessages(thread.id), { body: { content: "on it" } });
    expect(fake.botMessages(thread.id).map((m) => m.content)).toEqual(["on it"]);
    const again: any = await client.rest.post(Routes.threads(fake.general.id, prompt.id), { body: { name: "twice" } }).catch((e: unknown) => e);
    expect(again.code).toBe(160004); // a thread has already been created for this message
  });

  test("two processes on one token both get an interaction; the second acknowledgement is refused with 40060", async () => {
    fake = await new FakeDiscord().start();
    const outcomes: string[] = [];
    for (const client of [await connect(), await connect()]) {
      client.on("interactionCreate", async (interaction) => {
        if (!interaction.isChatInputCommand()) return;
        await interaction.deferReply().then(
          () => outcomes.push("ok"),
          (error: any) => outcomes.push(String(error.code)),
        );
      });
    }
    fake.slashCommand(fake.addUser("alice"), fake.general, "status");
    await eventually(() => outcomes.length === 2, 5000, "both answers");
    expect(outcomes.sort()).toEqual([String(RESTJSONErrorCodes.InteractionHasAlreadyBeenAcknowledged), "ok"]);
  });
});

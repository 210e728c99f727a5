// End to end: `baton start` as a user runs it (bin/baton.js, the shipped bundle) with the demo agent,
// against the fake Discord with Discord's own message buckets (5 per 5 s per channel). What a
// Discord user sees. Each test ends with nothing logged at error or above and no token in the log.
import { afterEach, describe, expect, test } from "vitest";
import { discordAdapter, eventually, startShippedDiscordBed, type ShippedDiscordBed } from "./helpers.js";
import { ChannelType, MessageFlag } from "../../fakes/discord/index.js";

const E2E_TIMEOUT_MS = 20_000;

let bed: ShippedDiscordBed | undefined;
afterEach(async () => {
  const stopped = bed;
  bed = undefined;
  await stopped?.stop();
  if (!stopped) return;
  expect(stopped.baton.problems()).toEqual([]);
  expect(
    stopped.baton
      .log()
      .map((l) => JSON.stringify(l))
      .join("\n"),
  ).not.toContain(stopped.fake.token);
});

describe("Discord end to end with the demo agent", () => {
  test("a mention in a channel starts a thread from it; the answer streams there by edits; a follow-up needs no mention", async () => {
    bed = await startShippedDiscordBed();
    const { fake, alice } = bed;
    // Discord's typing indicator lasts about 10 s: the core repeats it every 8 s while a turn runs.
    expect(discordAdapter(fake).capabilities.typingIntervalMs).toBe(8000);
    const prompt = fake.say(alice, fake.general, "demo:slow", { mention: true });
    const thread = await eventually(() => fake.threadOf(prompt), E2E_TIMEOUT_MS, "the thread");
    expect(thread).toMatchObject({ id: prompt.id, parentId: fake.general.id, name: "demo:slow" });
    const reply = await eventually(() => bed!.find(thread.id, /step 3/), E2E_TIMEOUT_MS, "three streamed steps");
    expect(reply.history.length).toBeGreaterThanOrEqual(3);
    expect(fake.callsTo("PATCH /channels/:channel/messages/:message").filter((c) => c.params.message === reply.id).length).toBeGreaterThanOrEqual(2);
    expect(fake.typingIn(thread.id).length).toBeGreaterThanOrEqual(1);
    expect(fake.botMessages(fake.general.id)).toEqual([]);

    fake.say(alice, thread, "/stop");
    await eventually(() => bed!.find(thread.id, /Stopped/), E2E_TIMEOUT_MS, "the stop");
    fake.say(alice, thread, "again");
    await eventually(() => bed!.find(thread.id, /^Turn 2 of session .*: you said "again"$/), E2E_TIMEOUT_MS, "the follow-up in the same session");
    // No answer ever pinged anyone or previewed a link.
    for (const call of fake.callsTo("POST /channels/:channel/messages")) expect(call.body).toMatchObject({ allowed_mentions: { parse: [] }, flags: MessageFlag.SuppressEmbeds });
  });

  test("with `threads: off` the channel is the conversation: a mention, then a reply to the bot without one", async () => {
    bed = await startShippedDiscordBed({ config: () => ({ threads: "off" }) });
    const { fake, alice } = bed;
    fake.say(alice, fake.general, "first", { mention: true });
    const answer = await eventually(() => bed!.find(fake.general.id, /you said "first"/), E2E_TIMEOUT_MS, "the answer in the channel");
    fake.say(alice, fake.general, "not for the bot");
    fake.say(alice, fake.general, "second", { replyTo: answer });
    await eventually(() => bed!.find(fake.general.id, /Turn 2 of session .*you said "second"/), E2E_TIMEOUT_MS, "the answer to the reply");
    expect(fake.callsTo("POST /channels/:channel/messages/:message/threads")).toEqual([]);
    expect(fake.botMessages(fake.general.id).some((m) => /not for the bot/.test(m.content))).toBe(false);
  });

  test("`listen_all_in` on a channel covers the threads people start in it (looked up when discord.js has not seen them)", async () => {
    bed = await startShippedDiscordBed({ config: (fake) => ({ listen_all_in: [`discord:${fake.general.id}`] }) });
    const { fake, alice } = bed;
    const theirs = fake.world.addChannel({ type: ChannelType.PublicThread, name: "alice's thread", guildId: fake.guild.id, parentId: fake.general.id, ownerId: alice.id });
    fake.say(alice, theirs, "in a thread of alice's");
    await eventually(() => bed!.find(theirs.id, /you said "in a thread of alice's"/), E2E_TIMEOUT_MS, "the answer in that thread");
    expect(fake.callsTo("GET /channels/:channel").map((c) => c.params.channel)).toEqual([theirs.id]);
  });

  test("a DM is answered in the DM, and chatter in a channel without a mention is left alone", async () => {
    bed = await startShippedDiscordBed();
    const { fake, alice } = bed;
    fake.say(alice, fake.general, "just chatting");
    fake.dm(alice, "hello");
    await eventually(() => bed!.find(fake.dmChannel(alice).id, /you said "hello"/), E2E_TIMEOUT_MS, "the DM answer");
    expect(fake.botMessages(fake.general.id)).toEqual([]);
    expect(fake.callsTo("POST /channels/:channel/messages/:message/threads")).toEqual([]);
  });

  test("a 6 KB answer arrives as several messages under 2,000 characters, in order, no code block cut open", async () => {
    bed = await startShippedDiscordBed();
    const { fake, alice } = bed;
    const dm = fake.dmChannel(alice).id;
    fake.dm(alice, "demo:long 6");
    await eventually(() => bed!.find(dm, /The end\./), E2E_TIMEOUT_MS, "the end of the answer");
    const pieces = fake.botMessages(dm).map((m) => m.content);
    expect(pieces.length).toBeGreaterThanOrEqual(4);
    for (const piece of pieces) {
      expect([...piece].length).toBeLessThanOrEqual(2000);
      expect((piece.match(/^```/gm) ?? []).length % 2).toBe(0);
    }
    const sections = pieces
      .join("\n")
      .match(/Section \d+/g)!
      .map((s) => Number(s.slice(8)));
    expect(sections).toEqual([...new Set(sections)].sort((a, b) => a - b));
    expect(new Set(sections).size).toBeGreaterThanOrEqual(3);
    expect(fake.calls.filter((c) => c.status === 429)).toEqual([]);
  });

  test("a 429: the send is made again only after retry_after", async () => {
    bed = await startShippedDiscordBed();
    const { fake, alice } = bed;
    fake.rateLimitNext("POST /channels/:channel/messages", 1.5);
    fake.dm(alice, "paced");
    await eventually(() => bed!.find(fake.dmChannel(alice).id, /you said "paced"/), E2E_TIMEOUT_MS, "the answer");
    const posts = fake.callsTo("POST /channels/:channel/messages");
    expect(posts[0].status).toBe(429);
    expect(posts[1].status).toBe(200);
    expect(posts[1].at - posts[0].at).toBeGreaterThanOrEqual(1500);
  });

  test("an approval by button: a stranger's press gets an ephemeral no naming their id; the user's press decides", async () => {
    bed = await startShippedDiscordBed();
    const { fake, alice, mallory } = bed;
    const prompt = fake.say(alice, fake.general, "demo:permission", { mention: true });
    const thread = await eventually(() => fake.threadOf(prompt), E2E_TIMEOUT_MS, "the thread");
    const request = await eventually(() => fake.botMessages(thread.id).find((m) => m.components.length > 0), E2E_TIMEOUT_MS, "the approval request");
    const buttons = request.components.flatMap((row: any) => row.components);
    expect(buttons.map((b: any) => b.label)).toEqual(expect.arrayContaining(["Allow once", "Reject"]));
    const allowOnce = buttons.find((b: any) => b.label === "Allow once");

    const refused = fake.press(mallory, request, allowOnce.custom_id);
    const note = await eventually(() => refused.followUps[0], E2E_TIMEOUT_MS, "the stranger's refusal");
    expect(note.visibleTo).toBe(mallory.id);
    expect(note.flags & MessageFlag.Ephemeral).toBe(MessageFlag.Ephemeral);
    expect(note.content).toMatch(new RegExp(`not allowed.*discord:${mallory.id}`));
    expect(request.components.length).toBeGreaterThan(0);

    const accepted = fake.press(alice, request, allowOnce.custom_id);
    await eventually(() => bed!.find(thread.id, /Permission answer: allow-once\./), E2E_TIMEOUT_MS, "the turn to go on");
    await eventually(() => request.components.length === 0 && /Allow once — by/.test(request.content), E2E_TIMEOUT_MS, "the decision on the request");
    expect(accepted.acknowledgedWith).toBe(6);
    expect(accepted.followUps).toEqual([]);
  });

  test("an attachment is fetched after the access check and handed to the agent", async () => {
    bed = await startShippedDiscordBed();
    const { fake, alice } = bed;
    fake.dm(alice, "see this", { files: [{ name: "notes.txt", content: "hello", contentType: "text/plain" }] });
    await eventually(() => bed!.find(fake.dmChannel(alice).id, /you said "see this \[file notes\.txt, 5 bytes\]"/), E2E_TIMEOUT_MS, "the answer naming the file");
    expect(fake.downloads).toHaveLength(1);
  });

  test("an image goes inline to an agent that takes images", async () => {
    bed = await startShippedDiscordBed({ env: { BATON_DEMO_IMAGES: "1" } });
    const { fake, alice } = bed;
    const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
    fake.dm(alice, "what is this", { files: [{ name: "shot.png", content: png, contentType: "image/png" }] });
    await eventually(() => bed!.find(fake.dmChannel(alice).id, /you said "what is this \[image image\/png, 16 bytes\]"/), E2E_TIMEOUT_MS, "the answer naming the image");
  });

  test("a dropped gateway is resumed: a message lost in flight and one sent while down are answered once each", async () => {
    bed = await startShippedDiscordBed();
    const { fake, alice } = bed;
    const dm = fake.dmChannel(alice).id;
    fake.dm(alice, "one");
    // The whole answer (the demo agent's one line), so the turn is over before the gateway drops.
    await eventually(() => bed!.find(dm, /^Turn 1 of session .*: you said "one"$/), E2E_TIMEOUT_MS, "the first answer");

    fake.gateway.loseNextFrames(1);
    fake.dm(alice, "two");
    fake.gateway.drop();
    fake.dm(alice, "three");
    await eventually(() => bed!.find(dm, /you said "three"/), E2E_TIMEOUT_MS, "the answer after the resume");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const answers = fake
      .botMessages(dm)
      .map((m) => /you said "(\w+)"/.exec(m.content)?.[1])
      .filter(Boolean);
    expect(answers).toEqual(["one", "two", "three"]);
    expect([fake.gateway.identifies, fake.gateway.resumes]).toEqual([1, 1]);
  });
});

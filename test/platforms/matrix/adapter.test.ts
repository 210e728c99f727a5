// The Matrix adapter alone against the fake homeserver, with a recording core: the facts it hands
// over (the core decides what they mean), one homeserver call per send with typed errors, approvals
// as reactions, invites, typing (shown, and a person starting to type).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FormattingError, PlatformError } from "../../../src/kernel/errors.js";
import type { MatrixAdapter } from "../../../src/platforms/matrix/index.js";
import { createRoom, invite, join as joinRoom, sendEvent } from "../../fakes/matrix/rooms.js";
import type { Room } from "../../fakes/matrix/state.js";
import { seenMessages } from "../../fakes/matrix/view.js";
import { RecordingCore, startWorld, until, type MatrixWorld } from "./helpers.js";

const SEND = /\/send\/m\.room\.message\//;
/** The bot device starts with its crypto in each test: slow on a busy machine. */
const SLOW_MS = 60_000;
let world: MatrixWorld;
let adapter: MatrixAdapter | undefined;
let core: RecordingCore;

beforeEach(async () => {
  world = await startWorld();
  core = new RecordingCore([`matrix:${world.alice}`]);
});
afterEach(async () => {
  await adapter?.stop();
  adapter = undefined;
  await world.close();
});

async function started(): Promise<MatrixAdapter> {
  adapter = world.adapter();
  await adapter.start(core);
  return adapter;
}

function roomWith(creator: string, others: string[]): Room {
  const room = createRoom(world.fake.state, creator, { invite: others });
  for (const other of others) joinRoom(world.fake.state, room, other);
  return room;
}

const say = (room: Room, sender: string, content: Record<string, unknown>) => sendEvent(world.fake.state, room, sender, "m.room.message", { msgtype: "m.text", ...content });
const handed = (text: string) => until(() => core.messages.find((m) => m.text === text), `"${text}" handed to the core`);

describe("inbound facts", { timeout: SLOW_MS }, () => {
  it("a DM, chatter and a mention pill in a room of three, a reply to the bot, threads: facts for the core", async () => {
    const { alice, mallory, bot } = world;
    const dm = roomWith(alice, [bot]);
    const group = roomWith(alice, [bot, mallory]);
    const a = await started();

    say(dm, alice, { body: "hello" });
    expect(await handed("hello")).toMatchObject({ route: `matrix:${dm.roomId}`, user: { id: `matrix:${alice}`, name: "Alice" }, direct: true, mentions: [], replyToBot: false });

    // Unaddressed chatter is handed over too: addressing is the core's decision.
    say(group, mallory, { body: "just chatting" });
    expect(await handed("just chatting")).toMatchObject({ direct: false, mentions: [], replyToBot: false, user: { id: `matrix:${mallory}` } });
    say(group, alice, { body: "Baton: run it", format: "org.matrix.custom.html", formatted_body: `<a href="https://matrix.to/#/${bot}">Baton</a>: run it`, "m.mentions": { user_ids: [bot] } });
    expect((await handed("Baton: run it")).mentions).toEqual(["Baton"]);

    const answer = await a.send(`matrix:${group.roomId}`, { text: "an answer" });
    say(group, alice, { body: "thanks", "m.relates_to": { "m.in_reply_to": { event_id: answer.id } } });
    expect((await handed("thanks")).replyToBot).toBe(true);

    const root = say(group, alice, { body: "a topic" });
    const inThread = { "m.relates_to": { rel_type: "m.thread", event_id: root.event_id, is_falling_back: true, "m.in_reply_to": { event_id: root.event_id } } };
    say(group, alice, { body: "first in the thread", ...inThread });
    const threadRoute = `matrix:${group.roomId}:${root.event_id}`;
    expect(await handed("first in the thread")).toMatchObject({ route: threadRoute, scopes: [`matrix:${group.roomId}`], replyToBot: false });
    await a.send(threadRoute, { text: "in the thread" });
    expect(seenMessages(group, bot).at(-1)!.threadRoot).toBe(root.event_id);
    say(group, alice, { body: "second in the thread", ...inThread });
    expect((await handed("second in the thread")).replyToBot).toBe(true);
  });

  it("a file is a descriptor: nothing is downloaded until the core fetches it", async () => {
    const dm = roomWith(world.alice, [world.bot]);
    await started();
    const url = world.fake.upload(Buffer.from("file body"), "text/plain", "notes.txt");
    say(dm, world.alice, { msgtype: "m.file", body: "notes.txt", url, info: { mimetype: "text/plain", size: 9 } });
    const message = await handed("");
    expect(message.files).toMatchObject([{ name: "notes.txt", mimeType: "text/plain", size: 9 }]);
    expect(world.fake.callsTo(/\/media\/download\//)).toHaveLength(0);
    const chunks: Uint8Array[] = [];
    for await (const chunk of await message.files![0].fetch(AbortSignal.timeout(5000))) chunks.push(chunk);
    expect(Buffer.concat(chunks).toString()).toBe("file body");
    expect(world.fake.callsTo(/\/media\/download\//)).toHaveLength(1);
  });
});

describe("typing starts", { timeout: SLOW_MS }, () => {
  it("a person starting to type is handed over with the room's route, once per start; the bot's own is not; an unencrypted room's is not under require_encryption", async () => {
    const { alice, mallory, bot } = world;
    const dm = roomWith(alice, [bot]);
    const group = roomWith(alice, [bot, mallory]);
    const a = await started();
    const setTyping = (room: Room, user: string, on: boolean) => world.fake.state.setTyping(room, user, on, 30_000);

    setTyping(dm, alice, true);
    await until(() => core.typings.length === 1, "the typing start");
    expect(core.typings[0]).toEqual({ route: `matrix:${dm.roomId}`, user: { id: `matrix:${alice}`, name: "Alice" } });
    // Still typing (Element renews the notice), then the bot's own "typing…", then a stop: no new start.
    setTyping(dm, alice, true);
    await a.typing(`matrix:${dm.roomId}`);
    setTyping(dm, alice, false);
    // Who decides whether a stranger's typing counts is the core: it is handed over too.
    setTyping(group, mallory, true);
    await until(() => core.typings.length === 2, "the second typing start");
    expect(core.typings[1]).toEqual({ route: `matrix:${group.roomId}`, user: { id: `matrix:${mallory}`, name: "Mallory" } });
    await a.stop();

    adapter = world.adapter(undefined, { require_encryption: true });
    await adapter.start(core);
    setTyping(group, alice, true);
    // A message after it (refused, with a notice) shows the sync that carried the typing was read.
    say(group, alice, { body: "after typing" });
    await until(() => seenMessages(group, bot).some((m) => m.text.includes("require_encryption")), "the refusal's notice");
    expect(core.typings).toHaveLength(2);
  });
});

describe("one homeserver call per send", { timeout: SLOW_MS }, () => {
  it("429, 5xx, refusals and no answer are typed errors after one PUT each; no unsent echo stays behind", async () => {
    const dm = roomWith(world.alice, [world.bot]);
    const a = await started();
    const route = `matrix:${dm.roomId}`;
    const fails = async (answer: Parameters<typeof world.fake.failNext>[1]) => {
      const before = world.fake.callsTo(SEND, "PUT").length;
      world.fake.failNext({ method: "PUT", path: SEND }, answer);
      const error = await a.send(route, { text: "try" }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(PlatformError);
      expect(world.fake.callsTo(SEND, "PUT").length - before).toBe(1);
      return error as PlatformError;
    };
    expect(await fails({ status: 429, errcode: "M_LIMIT_EXCEEDED", retryAfterMs: 700 })).toMatchObject({ reason: "rate_limited", retryAfterMs: 700, retryScope: "platform" });
    expect(await fails({ status: 502, errcode: "M_UNKNOWN" })).toMatchObject({ reason: "unavailable" });
    expect(await fails({ status: 403, errcode: "M_FORBIDDEN", error: "You are not in this room" })).toMatchObject({ reason: "refused" });
    expect(await fails({ status: 0, errcode: "" })).toMatchObject({ reason: "network" });

    await a.send(route, { text: "and now it goes" });
    expect(seenMessages(dm, world.bot).map((m) => m.text)).toEqual(["and now it goes"]);
    // The SDK keeps no failed local echo it could resend or that would block the room's next sends.
    const sdkRoom = a.connection.client.getRoom(dm.roomId)!;
    expect(
      sdkRoom
        .getLiveTimeline()
        .getEvents()
        .filter((e) => e.status === "not_sent"),
    ).toEqual([]);
  });

  it("markdown goes as sanitised HTML with the markdown as plain body; plain when asked; too large with HTML is a FormattingError before any call", async () => {
    const dm = roomWith(world.alice, [world.bot]);
    const a = await started();
    const route = `matrix:${dm.roomId}`;
    await a.send(route, { text: "**bold** `code` <script>alert(1)</script> [x](javascript:alert(1))" });
    const [formatted] = seenMessages(dm, world.bot);
    expect(formatted.content).toMatchObject({ msgtype: "m.text", format: "org.matrix.custom.html", body: "**bold** `code` <script>alert(1)</script> [x](javascript:alert(1))" });
    expect(formatted.content.formatted_body).toBe("<p><strong>bold</strong> <code>code</code> &lt;script>alert(1)&lt;/script> x</p>");
    expect(formatted.content.formatted_body).not.toMatch(/<script|href="javascript/);
    await a.send(route, { text: "**as is**", format: "plain", kind: "notice" });
    expect(seenMessages(dm, world.bot)[1].content).toEqual({ msgtype: "m.notice", body: "**as is**", "m.mentions": {} });

    const before = world.fake.callsTo(SEND, "PUT").length;
    const huge = "<".repeat(12_000);
    await expect(a.send(route, { text: huge })).rejects.toBeInstanceOf(FormattingError);
    expect(world.fake.callsTo(SEND, "PUT").length).toBe(before);
    await a.send(route, { text: huge, format: "plain" });
    expect(seenMessages(dm, world.bot)[2].text).toBe(huge);
  });

  it("typing while a turn runs, taken down when it ends", async () => {
    const dm = roomWith(world.alice, [world.bot]);
    const a = await started();
    await a.typing(`matrix:${dm.roomId}`);
    expect(world.fake.state.typingUsers(dm)).toEqual([world.bot]);
    await a.turnStatus(`matrix:${dm.roomId}`, "idle");
    expect(world.fake.state.typingUsers(dm)).toEqual([]);
  });
});

describe("approvals as reactions", { timeout: SLOW_MS }, () => {
  it("the bot reacts with the choices under a legend; a reaction is a press; a stranger is told once; answered, reactions do nothing", async () => {
    const { alice, mallory, bot } = world;
    const group = roomWith(alice, [bot, mallory]);
    const a = await started();
    const route = `matrix:${group.roomId}`;
    const buttons = [
      [
        { id: "ap:1:0", label: "Allow once", style: "primary" as const, meaning: "allow" as const },
        { id: "ap:1:1", label: "Always allow", meaning: "allow" as const, lasting: true },
        { id: "ap:1:2", label: "Reject", style: "danger" as const, meaning: "deny" as const },
      ],
    ];
    const ref = await a.send(route, { text: "🔐 **Permission needed:** Run `ls`", kind: "approval", buttons });
    const request = () => seenMessages(group, bot).find((m) => m.eventId === ref.id)!;
    await until(() => request().reactions.length === 3, "the bot's three reactions");
    expect(request().reactions).toEqual(["👍", "✅", "❌"].map((key) => ({ sender: bot, key })));
    expect(request().text).toContain("👍 Allow once · ✅ Always allow · ❌ Reject");
    expect(request().text).toMatch(/reply 1, 2 or 3/);

    const react = (sender: string, key: string) => sendEvent(world.fake.state, group, sender, "m.reaction", { "m.relates_to": { rel_type: "m.annotation", event_id: ref.id, key } });
    react(mallory, "👍");
    react(mallory, "❌");
    react(alice, "🎉");
    react(alice, "✅");
    await until(() => core.presses.length === 3, "three presses");
    expect(core.presses.map((p) => [p.user.id, p.actionId, p.route])).toEqual([
      [`matrix:${mallory}`, "ap:1:0", route],
      [`matrix:${mallory}`, "ap:1:2", route],
      [`matrix:${alice}`, "ap:1:1", route],
    ]);
    const refusals = await until(
      () => seenMessages(group, bot).filter((m) => /not allowed/.test(m.text)).length > 0 && seenMessages(group, bot).filter((m) => /not allowed/.test(m.text)),
      "the refusal",
    );
    expect(refusals.map((m) => [m.text, m.content.msgtype])).toEqual([[`Mallory: You are not allowed to answer this (matrix:${mallory}).`, "m.notice"]]);

    // The core shows the decision by editing the request without buttons: its reactions are done.
    await a.edit(route, ref, { text: "🔐 **Permission needed:** Run `ls`\n\n**✅ Always allow — by Alice**", kind: "approval" });
    expect(request().text).not.toMatch(/React/);
    react(alice, "👍");
    await new Promise((r) => setTimeout(r, 300));
    expect(core.presses).toHaveLength(3);
  });
});

describe("invites", { timeout: SLOW_MS }, () => {
  it("an allowed user's invite is joined, a stranger's declined, also when they came while Baton was down", async () => {
    const { fake, alice, mallory, bot } = world;
    const early = createRoom(fake.state, mallory, { invite: [bot] });
    await started();
    const fromStranger = createRoom(fake.state, mallory, { invite: [bot] });
    const fromAlice = createRoom(fake.state, alice, { invite: [bot], is_direct: true });
    await until(() => [early, fromStranger].every((r) => fake.state.membership(r, bot) === "leave") && fake.state.membership(fromAlice, bot) === "join", "the invites answered");
    invite(fake.state, fromAlice, alice, mallory);
    expect(fake.state.membership(fromAlice, mallory)).toBe("invite");
  });
});

// The adapter against the fake Bot API with a recording core: what Telegram receives, and what the
// core is handed.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TelegramAdapter } from "../../src/platforms/telegram/index.js";
import { ENTITIES_400, FakeBotApi, tooManyRequests } from "../fakes/telegram/fake-bot-api.js";
import { forumChat, groupChat, privateChat, user } from "../fakes/telegram/fake-chats.js";
import { makeAdapter, RecordingCore, sleep, waitFor } from "./helpers.js";

const alice = user(111, "Alice", "alice");
const bob = user(222, "Bob");

let fake: FakeBotApi;
let adapter: TelegramAdapter;
let core: RecordingCore;

beforeEach(async () => {
  fake = await FakeBotApi.start();
  core = new RecordingCore(["telegram:111"]);
});

afterEach(async () => {
  await adapter?.stop();
  await fake.close();
  expect(core.logText()).not.toContain(fake.token);
});

async function startAdapter(config: Parameters<typeof makeAdapter>[1] = {}): Promise<void> {
  ({ adapter } = await makeAdapter(fake, config));
  await adapter.start(core);
}

describe("telegram adapter: start", () => {
  it("checks the token, publishes the commands, leaves webhook mode and says whom it connected as", async () => {
    ({ adapter } = await makeAdapter(fake));
    const info = await adapter.start(core);
    expect(info.description).toBe("telegram: connected as @baton_test_bot");
    // The daemon logs and prints this description once (test/cli); the adapter does not log it again.
    expect(core.logs.some((line) => line.obj === "telegram: connected as @baton_test_bot")).toBe(false);
    expect(fake.callsOf("getMe")).toHaveLength(1);
    expect(fake.callsOf("deleteWebhook")).toHaveLength(1);
    expect(fake.callsOf("setMyCommands")[0].params.commands).toEqual([
      { command: "help", description: "the commands, one line each" },
      { command: "status", description: "workspace, thread, agent" },
    ]);
    await waitFor(() => fake.callsOf("getUpdates").length > 0, "polling to start");
    expect(adapter.capabilities).toMatchObject({ edits: true, buttons: true, typing: true, typingIntervalMs: 4000, dialect: "telegram-html" });
  });

  it("stops promptly while a long poll is held", async () => {
    await startAdapter();
    await waitFor(() => fake.callsOf("getUpdates").length > 0, "a long poll");
    const before = Date.now();
    await adapter.stop();
    expect(Date.now() - before).toBeLessThan(1000);
  });
});

describe("telegram adapter: restart", () => {
  it("can be started again after stop and receives messages", async () => {
    await startAdapter();
    await adapter.stop();
    await adapter.start(core);
    expect(fake.callsOf("getMe")).toHaveLength(1); // the bot's identity is kept
    fake.userSends({ chat: privateChat(alice), from: alice, text: "after restart" });
    await waitFor(() => core.messages[0]?.text === "after restart", "the message after the restart");
    await adapter.send("telegram:111", { text: "still sending" });
    expect(fake.sentTo(111).map((m) => m.text)).toEqual(["still sending"]);
  });
});

describe("telegram adapter: private chat", () => {
  it("hands a prompt to the core and streams the reply by editing one message", async () => {
    await startAdapter();
    core.onMessage = async (message) => {
      const ref = await adapter.send(message.route, { text: "Thinking" });
      await adapter.edit(message.route, ref, { text: "Thinking about **it**" });
      await adapter.edit(message.route, ref, { text: "Thinking about **it**: done. `x < y`" });
    };
    fake.userSends({ chat: privateChat(alice), from: alice, text: "hello agent" });
    const inbound = await waitFor(() => core.messages[0], "the prompt");
    expect(inbound).toMatchObject({ route: "telegram:111", user: { id: "telegram:111", name: "@alice" }, text: "hello agent", addressed: true, direct: true });
    const [reply] = await waitFor(() => fake.sentTo(111)[0]?.history.length === 3 && fake.sentTo(111), "three versions");
    expect(reply.history).toEqual(["Thinking", "Thinking about it", "Thinking about it: done. x < y"]);
    expect(fake.callsOf("editMessageText").at(-1)!.params).toMatchObject({ chat_id: 111, message_id: reply.messageId, parse_mode: "HTML" });
    expect(fake.callsOf("sendMessage")).toHaveLength(1);
  });

  it("ignores Telegram's 'message is not modified' on an edit that changes nothing", async () => {
    await startAdapter();
    const ref = await adapter.send("telegram:111", { text: "same" });
    await expect(adapter.edit("telegram:111", ref, { text: "same" })).resolves.toBeUndefined();
  });

  it("sends typing with the topic when asked", async () => {
    await startAdapter();
    await adapter.typing("telegram:-100500:7");
    expect(fake.callsOf("sendChatAction")[0].params).toEqual({ chat_id: -100500, action: "typing", message_thread_id: 7 });
  });
});

describe("telegram adapter: groups and topics", () => {
  const group = groupChat(-100777);

  it("ignores unaddressed chatter and answers a mention, a command and a reply to the bot", async () => {
    await startAdapter();
    fake.userSends({ chat: group, from: alice, text: "just talking among humans" });
    fake.userSends({ chat: group, from: alice, text: "/status@other_bot" });
    fake.userSends({ chat: group, from: alice, text: "hey @baton_test_bot please run the tests" });
    fake.userSends({ chat: group, from: alice, text: "/status@Baton_Test_Bot" });
    await waitFor(() => core.messages.length === 2 && core.messages, "two addressed messages");
    expect(core.messages.map((m) => m.text)).toEqual(["hey please run the tests", "/status"]);
    expect(core.messages[0]).toMatchObject({ route: "telegram:-100777", addressed: true, direct: false });

    const ref = await adapter.send("telegram:-100777", { text: "Done." });
    fake.userSends({ chat: group, from: bob, text: "thanks, now the lint", replyTo: Number(ref.id) });
    const reply = await waitFor(() => core.messages[2], "the reply");
    expect(reply).toMatchObject({ text: "thanks, now the lint", user: { id: "telegram:222", name: "Bob" } });
    await sleep(100);
    expect(core.messages).toHaveLength(3);
  });

  it("hands every message of a listen_all_in route, and none when groups are off", async () => {
    await startAdapter({ listen_all_in: ["telegram:-100777"] });
    fake.userSends({ chat: group, from: alice, text: "no mention here" });
    await waitFor(() => core.messages[0]?.text === "no mention here", "the unaddressed message");
    await adapter.stop();

    const quiet = new RecordingCore();
    ({ adapter } = await makeAdapter(fake, { allow_groups: false }));
    await adapter.start(quiet);
    fake.userSends({ chat: group, from: alice, text: "@baton_test_bot hello?" });
    fake.userSends({ chat: privateChat(alice), from: alice, text: "direct still works" });
    await waitFor(() => quiet.messages[0], "the direct message");
    await sleep(100);
    expect(quiet.messages.map((m) => m.text)).toEqual(["direct still works"]);
  });

  it("treats two forum topics as two routes and answers in the right topic", async () => {
    await startAdapter();
    const forum = forumChat(-100900);
    core.onMessage = async (message) => void (await adapter.send(message.route, { text: `echo ${message.text}` }));
    fake.userSends({ chat: forum, from: alice, text: "@baton_test_bot in topic seven", threadId: 7 });
    fake.userSends({ chat: forum, from: alice, text: "@baton_test_bot in topic nine", threadId: 9 });
    await waitFor(() => fake.sentTo(-100900).length === 2, "two answers");
    expect(core.messages.map((m) => m.route)).toEqual(["telegram:-100900:7", "telegram:-100900:9"]);
    expect(fake.sentTo(-100900, 7).map((m) => m.text)).toEqual(["echo in topic seven"]);
    expect(fake.sentTo(-100900, 9).map((m) => m.text)).toEqual(["echo in topic nine"]);
    expect(fake.callsOf("sendMessage").map((call) => call.params.message_thread_id)).toEqual([7, 9]);
  });
});

describe("telegram adapter: output", () => {
  it("splits a 10 KB reply into messages within the limit, in order, fences reopened", async () => {
    await startAdapter();
    const code = Array.from({ length: 150 }, (_, i) => `print(${i})  # <${i}>`).join("\n");
    const prose = Array.from({ length: 60 }, (_, i) => `Sentence ${i} explains **step ${i}** of the change.`).join("\n\n");
    const markdown = `${prose}\n\n\`\`\`python\n${code}\n\`\`\`\n\nThe end.`;
    expect(markdown.length).toBeGreaterThan(5000);
    await adapter.send("telegram:111", { text: markdown.repeat(2) });
    const sent = fake.sentTo(111);
    expect(sent.length).toBeGreaterThan(2);
    for (const message of sent) expect(message.text.length).toBeLessThanOrEqual(4096);
    for (const call of fake.callsOf("sendMessage")) expect(call.params.parse_mode).toBe("HTML");
    const all = sent.map((m) => m.text).join("\n");
    let last = -1;
    for (const marker of ["Sentence 0 ", "Sentence 59 ", "print(0)", "print(149)  # <149>", "The end."]) {
      const at = all.indexOf(marker, last + 1);
      expect(at, marker).toBeGreaterThan(last);
      last = at;
    }
  });

  it("resends as plain text when Telegram rejects the entities, on send and on edit", async () => {
    await startAdapter();
    fake.failNext("sendMessage", ENTITIES_400);
    const ref = await adapter.send("telegram:111", { text: "a **b** c" });
    const sends = fake.callsOf("sendMessage");
    expect(sends).toHaveLength(2);
    expect(sends[0].params).toMatchObject({ parse_mode: "HTML", text: "a <b>b</b> c" });
    expect(sends[1].params.parse_mode).toBeUndefined();
    expect(sends[1].params.text).toBe("a **b** c");
    expect(fake.sentTo(111)[0].text).toBe("a **b** c");

    fake.failNext("editMessageText", ENTITIES_400);
    await adapter.edit("telegram:111", ref, { text: "a **b** c d" });
    expect(fake.sentTo(111)[0].text).toBe("a **b** c d");
    expect(core.logs.filter((line) => line.level === "warn")).toHaveLength(2);
  });

  it("keeps a streamed message that outgrows one Telegram message in continuation messages", async () => {
    await startAdapter();
    const line = (i: number) => `line ${i} ${"x".repeat(90)}`;
    const text = (lines: number) => Array.from({ length: lines }, (_, i) => line(i)).join("\n");
    const ref = await adapter.send("telegram:111", { text: text(10) });
    await adapter.edit("telegram:111", ref, { text: text(100) }); // ~10 KB: needs three messages
    let sent = fake.sentTo(111);
    expect(sent.length).toBe(3);
    expect(sent[0].messageId).toBe(Number(ref.id));
    expect(sent.map((m) => m.text).join("\n")).toBe(text(100));
    await adapter.edit("telegram:111", ref, { text: text(110) }); // the continuations are edited, not resent
    sent = fake.sentTo(111);
    expect(sent.length).toBe(3);
    expect(sent.map((m) => m.text).join("\n")).toBe(text(110));
    await adapter.edit("telegram:111", ref, { text: text(5) }); // shrinks: continuations deleted
    expect(fake.sentTo(111).map((m) => m.text)).toEqual([text(5)]);
    expect(fake.callsOf("deleteMessage")).toHaveLength(2);
  });

  it("does not duplicate continuation messages when edits of a growing message overlap", async () => {
    await startAdapter();
    const text = (lines: number) => Array.from({ length: lines }, (_, i) => `line ${i} ${"y".repeat(90)}`).join("\n");
    const ref = await adapter.send("telegram:111", { text: text(1) });
    await Promise.all([60, 70, 80, 90].map((lines) => adapter.edit("telegram:111", ref, { text: text(lines) })));
    const sent = fake.sentTo(111);
    expect(sent.map((m) => m.text).join("\n")).toBe(text(90));
    expect(sent.length).toBe(3);
  });

  it("sends progress silently and answers with a notification", async () => {
    await startAdapter();
    await adapter.send("telegram:111", { text: "🔧 Run npm test", kind: "tool" });
    await adapter.send("telegram:111", { text: "All tests pass.", kind: "text" });
    expect(fake.callsOf("sendMessage").map((call) => call.params.disable_notification)).toEqual([true, undefined]);
  });

  it("sends plain format as is", async () => {
    await startAdapter();
    await adapter.send("telegram:111", { text: "<not html> **not bold**", format: "plain" });
    expect(fake.callsOf("sendMessage")[0].params.parse_mode).toBeUndefined();
    expect(fake.sentTo(111)[0].text).toBe("<not html> **not bold**");
  });

  it("waits out a 429 retry_after and then delivers", async () => {
    await startAdapter();
    fake.failNext("sendMessage", tooManyRequests(1));
    await adapter.send("telegram:111", { text: "after the flood wait" });
    const [refused, accepted] = fake.callsOf("sendMessage");
    expect(accepted.at - refused.at).toBeGreaterThanOrEqual(1000);
    expect(fake.sentTo(111).map((m) => m.text)).toEqual(["after the flood wait"]);
  });
});

// The adapter against the fake Bot API with a recording core: what Telegram receives, and what the
// core is handed.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TelegramAdapter } from "../../../src/platforms/telegram/index.js";
import { FormattingError, type PlatformError } from "../../../src/kernel/errors.js";
import { ENTITIES_400, FakeBotApi, tooManyRequests } from "../../fakes/telegram/fake-bot-api.js";
import { forumChat, groupChat, privateChat, user } from "../../fakes/telegram/fake-chats.js";
import { TELEGRAM_PACING } from "../../../src/platforms/telegram/adapter.js";
import { FAST_TUNING, makeAdapter, RecordingCore, sleep, waitFor } from "./helpers.js";

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
    expect(adapter.capabilities).toMatchObject({ edits: true, buttons: true, typingIntervalMs: 4000, pacing: FAST_TUNING.pacing });
    expect(TELEGRAM_PACING).toEqual({ key: { burst: 3, perSecond: 1 }, keyWindow: { calls: 20, windowMs: 60_000 }, platform: { calls: 30, windowMs: 1_000 } });
    // Telegram counts its flood limits per chat: a forum's topics share their chat's key.
    expect(adapter.paceKey("telegram:-100500:7")).toEqual({ key: "-100500", windowed: true });
    expect(adapter.paceKey("telegram:111")).toEqual({ key: "111", windowed: false });
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
    expect(inbound).toMatchObject({ route: "telegram:111", user: { id: "telegram:111", name: "@alice" }, text: "hello agent", direct: true, mentions: [], replyToBot: false });
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

  it("reports every group message with its facts: the bot's mentions, a reply to the bot; the core decides", async () => {
    await startAdapter();
    fake.userSends({ chat: group, from: alice, text: "just talking among humans" });
    fake.userSends({ chat: group, from: alice, text: "/status@other_bot" });
    fake.userSends({ chat: group, from: alice, text: "hey @baton_test_bot please run the tests" });
    fake.userSends({ chat: group, from: alice, text: "/status@Baton_Test_Bot" });
    await waitFor(() => core.messages.length === 4, "four messages");
    expect(core.messages.map((m) => [m.text, m.mentions])).toEqual([
      ["just talking among humans", []],
      ["/status@other_bot", []],
      ["hey @baton_test_bot please run the tests", ["@baton_test_bot"]],
      ["/status@Baton_Test_Bot", ["@Baton_Test_Bot"]],
    ]);
    expect(core.messages[0]).toMatchObject({ route: "telegram:-100777", direct: false, replyToBot: false });

    const ref = await adapter.send("telegram:-100777", { text: "Done." });
    fake.userSends({ chat: group, from: bob, text: "thanks, now the lint", replyTo: Number(ref.id) });
    const reply = await waitFor(() => core.messages[4], "the reply");
    expect(reply).toMatchObject({ text: "thanks, now the lint", user: { id: "telegram:222", name: "Bob" }, replyToBot: true });
  });

  it("hands over nothing from groups when groups are off", async () => {
    ({ adapter } = await makeAdapter(fake, { allow_groups: false }));
    await adapter.start(core);
    fake.userSends({ chat: group, from: alice, text: "@baton_test_bot hello?" });
    fake.userSends({ chat: privateChat(alice), from: alice, text: "direct still works" });
    await waitFor(() => core.messages[0], "the direct message");
    await sleep(100);
    expect(core.messages.map((m) => m.text)).toEqual(["direct still works"]);
  });

  it("treats two forum topics as two routes and answers in the right topic", async () => {
    await startAdapter();
    const forum = forumChat(-100900);
    core.onMessage = async (message) => void (await adapter.send(message.route, { text: `echo ${message.text}` }));
    fake.userSends({ chat: forum, from: alice, text: "@baton_test_bot in topic seven", threadId: 7 });
    fake.userSends({ chat: forum, from: alice, text: "@baton_test_bot in topic nine", threadId: 9 });
    await waitFor(() => fake.sentTo(-100900).length === 2, "two answers");
    expect(core.messages.map((m) => m.route)).toEqual(["telegram:-100900:7", "telegram:-100900:9"]);
    // The chat encloses its topics: `listen_all_in: [telegram:-100900]` covers both.
    expect(core.messages.map((m) => m.scopes)).toEqual([["telegram:-100900"], ["telegram:-100900"]]);
    expect(fake.sentTo(-100900, 7).map((m) => m.text)).toEqual(["echo @baton_test_bot in topic seven"]);
    expect(fake.sentTo(-100900, 9).map((m) => m.text)).toEqual(["echo @baton_test_bot in topic nine"]);
    expect(fake.callsOf("sendMessage").map((call) => call.params.message_thread_id)).toEqual([7, 9]);
  });
});

describe("telegram adapter: output, one call each", () => {
  it("reports a refused formatting as a FormattingError and a text too long once rendered likewise", async () => {
    await startAdapter();
    fake.failNext("sendMessage", ENTITIES_400);
    await expect(adapter.send("telegram:111", { text: "a **b** c" })).rejects.toBeInstanceOf(FormattingError);
    expect(fake.callsOf("sendMessage")).toHaveLength(1);
    expect(fake.callsOf("sendMessage")[0].params).toMatchObject({ parse_mode: "HTML", text: "a <b>b</b> c" });
    // A table padded into columns can render longer than 4096 visible characters: not even sent.
    const wide = `| a | b |\n|---|---|\n${Array.from({ length: 120 }, (_, i) => `| ${"w".repeat(30)}${i} | x |`).join("\n")}`;
    await expect(adapter.send("telegram:111", { text: wide })).rejects.toBeInstanceOf(FormattingError);
    expect(fake.callsOf("sendMessage")).toHaveLength(1);
  });

  it("turns a 429 into a rate limit of that chat with Telegram's retry_after, without waiting itself", async () => {
    await startAdapter();
    fake.failNext("sendMessage", tooManyRequests(7));
    const error = (await adapter.send("telegram:111", { text: "flood" }).catch((e: unknown) => e)) as PlatformError;
    expect(error).toMatchObject({ reason: "rate_limited", retryAfterMs: 7000, retryScope: "key" });
    expect(fake.callsOf("sendMessage")).toHaveLength(1);
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
});

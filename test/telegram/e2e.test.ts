// End to end: the real Baton core with the bundled demo ACP agent, talking through the Telegram
// adapter to the fake Bot API. What a Telegram user would see.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TelegramAdapter } from "../../src/platforms/telegram/index.js";
import { FakeBotApi, type BotMessage } from "../fakes/telegram/fake-bot-api.js";
import { forumChat, groupChat, privateChat, user } from "../fakes/telegram/fake-chats.js";
import { startTestBaton, type TestBaton } from "../support/harness.js";
import { FAST_TUNING, makeAdapter, waitFor } from "./helpers.js";

const alice = user(111, "Alice", "alice"); // in the harness's access.allow
const stranger = user(999, "Mallory", "mallory");
/** Generous: the agent is a real process and the machine may be busy with other test files. */
const E2E_TIMEOUT_MS = 25_000;
/** Paced like a slow Telegram chat, so the send budget is exercised with the real core streaming. */
const E2E_TUNING = { ...FAST_TUNING, sendLimits: { chatGapMs: 100, groupCallsPerMinute: 10_000, globalCallsPerSecond: 30 } };

let fake: FakeBotApi;
let adapter: TelegramAdapter;
let baton: TestBaton | undefined;

beforeEach(async () => {
  fake = await FakeBotApi.start();
  ({ adapter } = await makeAdapter(fake, {}, E2E_TUNING));
  baton = await startTestBaton({ adapters: [adapter] });
});

afterEach(async () => {
  await baton?.stop({ cleanup: true });
  baton = undefined;
  await fake.close();
});

const findSent = (chatId: number, pattern: RegExp, threadId?: number): BotMessage | undefined => fake.sentTo(chatId, threadId).find((m) => pattern.test(m.text));

describe("telegram end to end with the demo agent", { timeout: 60_000 }, () => {
  it("connects, publishes Baton's commands, and answers a private-chat prompt", async () => {
    expect(fake.callsOf("setMyCommands")[0].params.commands.map((c: { command: string }) => c.command)).toEqual(expect.arrayContaining(["help", "status", "new"]));
    fake.userSends({ chat: privateChat(alice), from: alice, text: "hello there" });
    const reply = await waitFor(() => findSent(111, /^Turn 1 of session .*: you said "hello there"$/), "the reply", E2E_TIMEOUT_MS);
    for (const earlier of reply.history.slice(0, -1)) expect(reply.text.startsWith(earlier)).toBe(true);
    expect(fake.callsOf("sendChatAction").some((call) => call.params.chat_id === 111 && call.params.action === "typing")).toBe(true);
  });

  it("streams a long-running reply by editing one message, and /stop cancels it", async () => {
    fake.userSends({ chat: privateChat(alice), from: alice, text: "demo:slow" });
    const streaming = await waitFor(() => findSent(111, /Working… step 3/), "three steps streamed", E2E_TIMEOUT_MS);
    expect(streaming.history.length).toBeGreaterThanOrEqual(2);
    for (const earlier of streaming.history.slice(0, -1)) expect(streaming.text.startsWith(earlier.trimEnd())).toBe(true);
    fake.userSends({ chat: privateChat(alice), from: alice, text: "/stop" });
    await waitFor(() => fake.sentTo(111).some((m) => /cancel|stopp/i.test(m.text)), "the cancellation notice", E2E_TIMEOUT_MS);
    expect(fake.callsOf("sendMessage").length).toBeLessThan(6);
    expect(fake.budgetViolations(fake.calls, 100)).toEqual([]);
  });

  it("refuses a stranger once, naming their id, and never reaches the agent", async () => {
    fake.userSends({ chat: privateChat(stranger), from: stranger, text: "let me in" });
    const refusal = await waitFor(() => fake.sentTo(999)[0], "the refusal", E2E_TIMEOUT_MS);
    expect(refusal.text).toContain("telegram:999");
    fake.userSends({ chat: privateChat(stranger), from: stranger, text: "please" });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(fake.sentTo(999).some((m) => /Turn \d/.test(m.text))).toBe(false);
  });

  it("asks for permission with buttons; a stranger's press is refused, the user's press decides", async () => {
    const group = groupChat(-100333);
    fake.userSends({ chat: group, from: alice, text: "@baton_test_bot demo:permission" });
    const request = await waitFor(() => fake.sentTo(-100333).find((m) => m.replyMarkup), "the approval request", E2E_TIMEOUT_MS);
    const buttons = request.replyMarkup!.inline_keyboard.flat();
    expect(buttons.map((b) => b.text)).toEqual(expect.arrayContaining(["Allow once", "Reject"]));
    for (const button of buttons) expect(Buffer.byteLength(button.callback_data)).toBeLessThanOrEqual(64);
    const allowOnce = buttons.find((b) => b.text === "Allow once")!;

    fake.userPresses(stranger, request, allowOnce.callback_data);
    const refusal = await waitFor(() => fake.callsOf("answerCallbackQuery")[0], "the stranger's answer", E2E_TIMEOUT_MS);
    expect(refusal.params).toMatchObject({ show_alert: true, text: expect.stringContaining("telegram:999") });
    expect(request.replyMarkup).toBeDefined();

    fake.userPresses(alice, request, allowOnce.callback_data);
    const accepted = await waitFor(() => fake.callsOf("answerCallbackQuery")[1], "alice's answer", E2E_TIMEOUT_MS);
    expect(accepted.params.show_alert).toBe(false);
    await waitFor(() => findSent(-100333, /Permission answer: allow-once\./), "the turn to continue", E2E_TIMEOUT_MS);
    // The core edits the request to show the decision and who made it; the keyboard is gone.
    await waitFor(() => request.replyMarkup === undefined && /Allow/i.test(request.text) && /alice/i.test(request.text), "the decision on the request", E2E_TIMEOUT_MS);
  });

  it("splits a 20 KB markdown reply into messages within Telegram's limit, in order", async () => {
    fake.userSends({ chat: privateChat(alice), from: alice, text: "demo:long" });
    await waitFor(() => findSent(111, /The end\./), "the end of the long reply", E2E_TIMEOUT_MS).catch((error: Error) => {
      const calls = fake.calls.slice(-6).map((call) => `${call.method} ${String(call.params.text ?? "").slice(-60)}`);
      throw new Error(`${error.message}; ${fake.sentTo(111).length} messages; last calls:\n${calls.join("\n")}`);
    });
    // "The end." can arrive before an earlier piece's last edit (edit gap): wait for the turn to end.
    await baton!.daemon.core.supervisor.drained(baton!.daemon.core.registry.threadForRoute("telegram:111")!.id);
    const sent = fake.sentTo(111);
    expect(sent.length).toBeGreaterThanOrEqual(5);
    for (const message of sent) expect(message.text.length).toBeLessThanOrEqual(4096);
    const all = sent.map((m) => m.text).join("\n");
    const sectionCount = (all.match(/^Section \d+$/gm) ?? []).length;
    expect(sectionCount).toBeGreaterThan(10);
    let last = -1;
    for (let section = 1; section <= sectionCount; section++) {
      const at = all.search(new RegExp(`^Section ${section}$`, "m"));
      expect(at, `section ${section}`).toBeGreaterThan(last);
      last = at;
    }
    expect(all.indexOf("The end.")).toBeGreaterThan(last);
    for (const call of fake.callsOf("sendMessage")) expect(call.params.parse_mode).toBe("HTML");
    expect(fake.budgetViolations(fake.calls, 100)).toEqual([]);
  });

  it("passes a document to the agent", async () => {
    const file = fake.addFile("some notes\n");
    fake.userSends({ chat: privateChat(alice), from: alice, text: "read this", document: { ...file, file_name: "notes.txt", mime_type: "text/plain" } });
    const reply = await waitFor(() => findSent(111, /you said .*"$/), "the whole reply", E2E_TIMEOUT_MS);
    // The demo agent echoes a resource link as `[file <name>, <size> bytes]`.
    expect(reply.text).toMatch(/you said "read this \[file notes\.txt, 11 bytes\]"$/);
  });

  it("in a group, ignores chatter and answers a mention", async () => {
    const group = groupChat(-100222);
    fake.userSends({ chat: group, from: alice, text: "humans talking, not to the bot" });
    fake.userSends({ chat: group, from: alice, text: "@baton_test_bot what now?" });
    const reply = await waitFor(() => findSent(-100222, /you said "what now\?"$/), "the answer to the mention", E2E_TIMEOUT_MS);
    expect(reply.text).toMatch(/^Turn 1 of session/); // the chatter never became a turn
    expect(fake.sentTo(-100222).filter((m) => /humans talking/.test(m.text))).toEqual([]);
  });

  it("keeps two forum topics apart as two threads", async () => {
    const forum = forumChat(-100444);
    fake.userSends({ chat: forum, from: alice, text: "/status@baton_test_bot", threadId: 3 });
    fake.userSends({ chat: forum, from: alice, text: "@baton_test_bot first topic", threadId: 3 });
    fake.userSends({ chat: forum, from: alice, text: "@baton_test_bot second topic", threadId: 5 });
    const first = await waitFor(() => findSent(-100444, /you said "first topic"/, 3), "topic 3's reply", E2E_TIMEOUT_MS);
    const second = await waitFor(() => findSent(-100444, /you said "second topic"/, 5), "topic 5's reply", E2E_TIMEOUT_MS);
    const sessionOf = (m: BotMessage) => /session (\S+):/.exec(m.text)![1];
    expect(sessionOf(first)).not.toBe(sessionOf(second));
    expect(first.text).toMatch(/^Turn 1 /);
    expect(second.text).toMatch(/^Turn 1 /);
  });
});

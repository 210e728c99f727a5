// End to end: `baton start` as a user runs it (bin/baton.js, the shipped bundle) with the demo ACP
// agent, talking to the fake Bot API. What a Telegram user would see, beyond the shared platform
// contract (test/platforms/telegram.contract.test.ts): the command menu, pacing kept while
// streaming (Baton's own pacing for Telegram, as shipped), topics.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeBotApi, type BotMessage } from "../../fakes/telegram/fake-bot-api.js";
import { forumChat, privateChat, user } from "../../fakes/telegram/fake-chats.js";
import { shippedConfig, startShippedBaton, type ShippedBaton } from "../../support/shipped-baton.js";
import { waitFor } from "./helpers.js";

const alice = user(111, "Alice", "alice");
/** Generous: the agent is a real process and the machine may be busy with other test files. */
const E2E_TIMEOUT_MS = 25_000;

let fake: FakeBotApi;
let baton: ShippedBaton | undefined;

beforeEach(async () => {
  fake = await FakeBotApi.start();
  baton = await startShippedBaton(shippedConfig({ access: { allow: ["telegram:111"] }, platforms: { telegram: { token: fake.token, api_root: fake.apiRoot } } }), { prefix: "baton-telegram-e2e-" });
});

afterEach(async () => {
  const stopped = baton;
  baton = undefined;
  await stopped?.stop();
  await fake.close();
  expect(stopped?.problems()).toEqual([]);
  expect(
    stopped
      ?.log()
      .map((l) => JSON.stringify(l))
      .join("\n"),
  ).not.toContain(fake.token.split(":")[1]);
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
    // Telegram's limits, enforced by the fake, as Baton paces them when shipped.
    expect(fake.floodRefusals).toEqual([]);
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

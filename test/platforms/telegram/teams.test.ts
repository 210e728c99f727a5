// A team in one Telegram group, over the wire (`baton start` as shipped, the fake Bot API, the demo
// agent): a member's /schedule is refused with the role and their id, an admin's accepted; a
// teammate's press on someone else's approval is answered with an alert only they see and the
// request stays open; the requester's press decides; prompts carry their author once two write.
import { describe, expect, it } from "vitest";
import type { BotMessage, FakeBotApi } from "../../fakes/telegram/fake-bot-api.js";
import { groupChat, user } from "../../fakes/telegram/fake-chats.js";
import { shippedOnTelegram, waitFor } from "./helpers.js";

const ana = user(111, "Ana", "ana");
const bob = user(222, "Bob", "bob");
const cid = user(333, "Cid", "cid");
const group = groupChat(-100500, "team");
const WAIT_MS = 25_000;

const shipped = shippedOnTelegram("baton-telegram-teams-");
const boot = (): Promise<FakeBotApi> => shipped.start({ allow: ["telegram:222", "telegram:333"], roles: { admin: ["telegram:111"] } });

const said = (api: FakeBotApi, pattern: RegExp): BotMessage | undefined => api.sentTo(group.id).find((m) => pattern.test(m.text));
const mention = (api: FakeBotApi, text: string) => `@${api.bot.username} ${text}`;

describe("telegram: a team in one group", { timeout: 90_000 }, () => {
  it("refuses a member's /schedule with the role and their id, accepts an admin's", async () => {
    const api = await boot();
    api.userSends({ chat: group, from: bob, text: '/schedule add "0 9 * * 1-5" standup notes' });
    await waitFor(() => said(api, /Adding a schedule needs the admin role; you \(telegram:222\) are a member\. An operator can add telegram:222 to access\.roles\.admin\./), "the refusal", WAIT_MS);
    api.userSends({ chat: group, from: ana, text: '/schedule add "0 9 * * 1-5" standup notes' });
    await waitFor(() => said(api, /⏰ Scheduled \w+/), "the schedule", WAIT_MS);
  });

  it("answers a teammate's press with an alert only they see; the request stays open until the requester decides", async () => {
    const api = await boot();
    api.userSends({ chat: group, from: bob, text: mention(api, "demo:permission") });
    const request = await waitFor(() => api.sentTo(group.id).find((m) => /Permission needed/.test(m.text) && m.replyMarkup), "the request", WAIT_MS);
    const allowOnce = request.replyMarkup!.inline_keyboard.flat().find((b) => b.text === "Allow once")!.callback_data;

    const pressed = api.userPresses(cid, request, allowOnce);
    const answer = await waitFor(() => api.callsOf("answerCallbackQuery").find((c) => c.params.callback_query_id === pressed), "the alert", WAIT_MS);
    expect(answer.params).toMatchObject({ show_alert: true, text: "Only @bob (telegram:222), who started this turn, or an admin may answer this request; you are telegram:333. It stays open." });
    // Nothing in the group: the message still asks, and no decision line was posted.
    expect(api.sentTo(group.id).find((m) => m.messageId === request.messageId)!.text).not.toMatch(/— by/);
    expect(said(api, /Permission answer:/)).toBeUndefined();

    api.userPresses(bob, request, allowOnce);
    await waitFor(() => said(api, /Permission answer: allow-once\./), "the agent told", WAIT_MS);
    // The request's edit and the agent's answer travel separately; either may land first.
    await waitFor(() => /Allow once — by @bob/.test(api.sentTo(group.id).find((m) => m.messageId === request.messageId)!.text), "the request edited", WAIT_MS);
  });

  it("marks prompts with their author once a second person writes", async () => {
    const api = await boot();
    api.userSends({ chat: group, from: bob, text: mention(api, "hello") });
    await waitFor(() => said(api, /you said "hello"/), "Bob's answer", WAIT_MS);
    api.userSends({ chat: group, from: cid, text: mention(api, "fix the flaky test") });
    await waitFor(() => said(api, /you said "\[cid\] fix the flaky test"/), "Cid's answer, marked", WAIT_MS);
  });
});

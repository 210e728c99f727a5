// `telegram:admins` in an access list, over the wire (`baton start` as shipped, the fake Bot API with
// getChatAdministrators, the demo agent): an administrator of the group gets in, someone else is
// refused with their id; an administrator removed in Telegram is refused once access.group_ttl has
// passed; a lookup Telegram refuses denies, with the reason in the log.
import { describe, expect, it } from "vitest";
import type { FakeBotApi } from "../../fakes/telegram/fake-bot-api.js";
import { groupChat, user } from "../../fakes/telegram/fake-chats.js";
import { shippedOnTelegram, waitFor } from "./helpers.js";

const ana = user(111, "Ana", "ana");
const bob = user(222, "Bob", "bob");
const group = groupChat(-100500, "team");
const TTL = "1s";
const WAIT_MS = 25_000;

const shipped = shippedOnTelegram("baton-telegram-groups-");
const boot = (): Promise<FakeBotApi> => shipped.start({ allow: ["telegram:admins"], roles: { admin: [] }, group_ttl: TTL });

const mention = (api: FakeBotApi, text: string) => `@${api.bot.username} ${text}`;
const sawText = (api: FakeBotApi, chatId: number, pattern: RegExp) => api.sentTo(chatId).some((m) => pattern.test(m.text));

describe("telegram: the group's administrators as an access entry", { timeout: 90_000 }, () => {
  it("lets an administrator in, refuses someone else with their id, and refuses a removed administrator after the TTL", async () => {
    const api = await boot();
    api.chatAdmins.set(group.id, [ana]);
    api.userSends({ chat: group, from: ana, text: mention(api, "hello") });
    await waitFor(() => sawText(api, group.id, /you said "hello"/), "Ana's answer", WAIT_MS);
    api.userSends({ chat: group, from: bob, text: mention(api, "let me in") });
    await waitFor(() => sawText(api, group.id, /not allowed to use this bot\. Ask the operator to add telegram:222 to access\.allow/), "Bob's refusal", WAIT_MS);
    expect(sawText(api, group.id, /you said "let me in"/)).toBe(false);

    api.chatAdmins.set(group.id, [bob]);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    api.userSends({ chat: group, from: ana, text: mention(api, "still here?") });
    await waitFor(() => sawText(api, group.id, /add telegram:111 to access\.allow/), "Ana's refusal", WAIT_MS);
    api.userSends({ chat: group, from: bob, text: mention(api, "now me") });
    await waitFor(() => sawText(api, group.id, /you said "\[bob\] now me"/), "Bob's answer", WAIT_MS);
    expect(sawText(api, group.id, /you said "still here\?"/)).toBe(false);
  });

  it("refuses when Telegram refuses the lookup, with the reason in the log", async () => {
    const api = await boot();
    const unknown = groupChat(-100777, "no admins known");
    api.userSends({ chat: unknown, from: ana, text: mention(api, "hello") });
    await waitFor(() => sawText(api, unknown.id, /add telegram:111 to access\.allow/), "the refusal", WAIT_MS);
    const logged = shipped
      .baton()
      .log()
      .find((line) => /could not look up whether the user is in a group/.test(line.msg ?? ""));
    expect(logged).toMatchObject({ principal: "telegram:admins", user: "telegram:111", route: "telegram:-100777" });
    expect(String(logged!.reason)).toMatch(/chat not found/);
    expect(api.callsOf("getChatAdministrators")).toHaveLength(1);
  });
});

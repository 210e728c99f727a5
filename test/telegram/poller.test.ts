// The long-poll loop against the fake Bot API: a delivered message is handled before the next poll.
import { Api } from "grammy/web";
import { afterEach, beforeEach, expect, it } from "vitest";
import { UpdatePoller } from "../../src/platforms/telegram/poller.js";
import { FakeBotApi } from "../fakes/telegram/fake-bot-api.js";
import { privateChat, user } from "../fakes/telegram/fake-chats.js";
import { FAST_TUNING, RecordingCore, waitFor } from "./helpers.js";

/** About as many promise steps as a prompt takes from the adapter to the agent's stdin. */
const HANDLING_STEPS = 200;

let fake: FakeBotApi;
let poller: UpdatePoller | undefined;

beforeEach(async () => {
  fake = await FakeBotApi.start();
});

afterEach(async () => {
  await poller?.stop();
  await fake.close();
});

it("lets a message's handling run before it starts the next long poll", async () => {
  const events: string[] = [];
  const api = new Api(fake.token, { apiRoot: fake.apiRoot });
  // Notes each poll as it is asked for (before any I/O), then makes the real call to the fake.
  const polling = {
    getUpdates: (...args: Parameters<Api["getUpdates"]>) => {
      events.push("poll");
      return api.getUpdates(...args);
    },
  } as unknown as Api;
  const handle = async (text: string) => {
    for (let step = 0; step < HANDLING_STEPS; step++) await Promise.resolve();
    events.push(`handled ${text}`);
  };
  poller = new UpdatePoller(polling, "telegram", fake.token, new RecordingCore().log, (update) => void handle(update.message?.text ?? "?"), FAST_TUNING.poller);
  poller.start();
  await waitFor(() => events.length === 1, "the first poll");
  const alice = user(111, "Alice");
  fake.userSends({ chat: privateChat(alice), from: alice, text: "one" });
  await waitFor(() => events.length >= 3, "the message and the next poll");
  expect(events.slice(0, 3)).toEqual(["poll", "handled one", "poll"]);
});

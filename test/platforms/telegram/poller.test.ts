// The long-poll loop against the fake Bot API: a delivered message is handled before the next poll.
import { Api } from "grammy/web";
import { afterEach, beforeEach, expect, it } from "vitest";
import { UpdatePoller } from "../../../src/platforms/telegram/poller.js";
import { FakeBotApi } from "../../fakes/telegram/fake-bot-api.js";
import { privateChat, user } from "../../fakes/telegram/fake-chats.js";
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

it("starts from a stored offset and stores the next one once a batch is handed over (an instance taking over reads on)", async () => {
  const offsets: number[] = [];
  const api = new Api(fake.token, { apiRoot: fake.apiRoot });
  const polling = {
    getUpdates: (...args: Parameters<Api["getUpdates"]>) => {
      offsets.push(args[0]?.offset ?? 0);
      return api.getUpdates(...args);
    },
  } as unknown as Api;
  const saved: number[] = [];
  const handled: string[] = [];
  // A previous instance handled "zero" and stored the offset past it, but never confirmed it to Telegram.
  const alice = user(111, "Alice");
  fake.userSends({ chat: privateChat(alice), from: alice, text: "zero" });
  const zero = { update_id: 1 }; // a fresh fake numbers its updates from 1
  const cursor = { load: async () => zero.update_id + 1, save: (offset: number) => saved.push(offset) };
  poller = new UpdatePoller(polling, "telegram", fake.token, new RecordingCore().log, (u) => handled.push(u.message?.text ?? "?"), FAST_TUNING.poller, cursor);
  poller.start();
  await waitFor(() => offsets.length >= 1, "the first poll");
  expect(offsets[0]).toBe(zero.update_id + 1);
  fake.userSends({ chat: privateChat(alice), from: alice, text: "one" });
  await waitFor(() => saved.length >= 1, "the offset saved");
  expect(handled).toEqual(["one"]);
  expect(saved).toEqual([offsets.at(-1)]);
});

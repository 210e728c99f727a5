// Limits per person shared by two Baton processes (`baton start` as shipped) over one real
// redis-server (store.kv), each serving its own Telegram bot (a fake Bot API each) to the same
// person: the turns one counts hold on the other, and so does a running turn's place.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { FakeBotApi, type BotMessage } from "../../fakes/telegram/fake-bot-api.js";
import { privateChat, user } from "../../fakes/telegram/fake-chats.js";
import { redisAvailable, startRedis, type TestRedis } from "../../support/redis.js";
import { shippedConfig, startShippedBaton, type ShippedBaton } from "../../support/shipped-baton.js";
import { waitFor } from "./helpers.js";

const bob = user(222, "Bob", "bob");
const chat = privateChat(bob);
const WAIT_MS = 30_000;
const HOUR_MS = 3_600_000;
/**
 * The test's timeout (it takes a few seconds on a quiet machine). Started closer than this to the top
 * of the hour, it first waits for the next hour (the count starts again then), in a hook of its own
 * so the wait does not eat the test's time.
 */
const RUN_MS = 180_000;

const fakes: FakeBotApi[] = [];
const batons: ShippedBaton[] = [];
let redis: TestRedis | undefined;

afterEach(async () => {
  const stopped = batons.splice(0);
  for (const b of stopped) await b.stop();
  for (const f of fakes.splice(0)) await f.close();
  await redis?.stop();
  redis = undefined;
  for (const b of stopped) expect(b.problems()).toEqual([]);
});

async function boot(url: string): Promise<FakeBotApi> {
  const api = await FakeBotApi.start();
  fakes.push(api);
  const config = shippedConfig({
    access: { allow: ["telegram:222"], roles: { admin: [] } },
    limits: { per_person: { turns_per_hour: 4, concurrent_turns: 1 } },
    time_zone: "UTC",
    store: { kv: url },
    platforms: { telegram: { token: api.token, api_root: api.apiRoot } },
  });
  batons.push(await startShippedBaton(config, { prefix: "baton-limits-redis-" }));
  return api;
}

const said = (api: FakeBotApi, pattern: RegExp): BotMessage | undefined => api.sentTo(chat.id).find((m) => pattern.test(m.text));

/** Bob's /usage on this Baton: the report it answers with. */
async function usage(api: FakeBotApi): Promise<BotMessage> {
  const before = api.sentTo(chat.id).length;
  api.userSends({ chat, from: bob, text: "/usage" });
  return waitFor(
    () =>
      api
        .sentTo(chat.id)
        .slice(before)
        .find((m) => /Your use/.test(m.text)),
    "/usage",
    WAIT_MS,
  );
}

/**
 * Until no turn holds Bob's one place. A turn frees it as it ends, which can come after its answer
 * shows (the answer goes out as it streams): the next prompt right after the answer could be refused.
 */
async function placeFreed(api: FakeBotApi): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const report = await usage(api);
    if (report.text.includes("Running or queued now: 0 of 1")) return;
    if (Date.now() > deadline) throw new Error(`a turn still holds Bob's place:\n${report.text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(!redisAvailable)("limits per person on Redis, two Baton processes", { timeout: RUN_MS }, () => {
  beforeAll(async () => {
    const toNextHour = HOUR_MS - (Date.now() % HOUR_MS);
    if (toNextHour < RUN_MS) await new Promise((resolve) => setTimeout(resolve, toNextHour + 1_000));
  }, RUN_MS + 10_000);

  it("share a person's turns this hour and their running turn's place", async () => {
    redis = await startRedis();
    const [a, b] = await Promise.all([boot(redis.url), boot(redis.url)]);

    a.userSends({ chat, from: bob, text: "one" });
    await waitFor(() => said(a, /you said "one"/), "the first answer", WAIT_MS);
    await placeFreed(b);
    b.userSends({ chat, from: bob, text: "two" });
    await waitFor(() => said(b, /you said "two"/), "the second answer, on the other Baton", WAIT_MS);
    await placeFreed(a);

    // A turn running on one Baton holds Bob's one place on the other too.
    a.userSends({ chat, from: bob, text: "demo:slow 30" });
    await waitFor(() => said(a, /Working… step 1/), "the slow turn", WAIT_MS);
    b.userSends({ chat, from: bob, text: "three" });
    await waitFor(
      () => said(b, /You already have 1 turn running or queued: your limit is 1 at once \(limits\.per_person\.concurrent_turns\)\. This message was not sent to the agent\./),
      "the refusal",
      WAIT_MS,
    );
    a.userSends({ chat, from: bob, text: "/stop" });
    await waitFor(() => said(a, /Stopped/), "the stop", WAIT_MS);

    // Its place was freed as the turn ended (before the stop notice went out): the next prompt on the other Baton runs (turn 4 of 4).
    b.userSends({ chat, from: bob, text: "four" });
    await waitFor(() => said(b, /you said "four"/), "the fourth answer", WAIT_MS);

    a.userSends({ chat, from: bob, text: "five" });
    const refusal = await waitFor(() => said(a, /turns_per_hour/), "the fifth prompt refused", WAIT_MS);
    expect(refusal.text).toMatch(
      /^⏳ You have reached your limit of 4 prompts to agents an hour \(limits\.per_person\.turns_per_hour\)\. It resets at \d\d:00 UTC, in (?:\d+ min|1 h)\. This message was not sent to the agent\.$/,
    );
    expect((await usage(b)).text).toContain("Turns this hour: 4 of 4");
    expect(said(b, /you said "three"/)).toBeUndefined();
    expect(said(a, /you said "five"/)).toBeUndefined();
  });
});

// End to end: the real Baton core with the bundled demo ACP agent, talking through the Slack
// adapter to the fake Slack over Socket Mode. What a Slack user would see, beyond the shared
// platform contract (test/platforms/slack.contract.test.ts): threads, the working reaction, /baton.
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { createSlackAdapter, type SlackAdapter } from "../../src/platforms/slack/index.js";
import { slackConfigSchema } from "../../src/platforms/slack/config.js";
import { FakeSlack, visibleText, type FakeMessage } from "../fakes/slack/index.js";
import { startTestBaton, type TestBaton } from "../support/harness.js";
import { eventually } from "./helpers.js";

const ALICE = "U111"; // in the harness's access.allow as slack:U111
const CHANNEL = "C0GENERAL";
const E2E_TIMEOUT_MS = 20_000;

let fake: FakeSlack;
let adapter: SlackAdapter;
let baton: TestBaton | undefined;

beforeEach(async () => {
  fake = await new FakeSlack().start();
  const config = slackConfigSchema.parse({ bot_token: fake.options.botToken, app_token: fake.options.appToken, api_url: fake.apiUrl, min_edit_gap_ms: 100 });
  adapter = createSlackAdapter("slack", config, { dataDir: "/nonexistent" }, { retryConfig: { retries: 0 }, channelGapMs: 50 });
  baton = await startTestBaton({ adapters: [adapter] });
});

afterEach(async () => {
  await baton?.stop({ cleanup: true });
  baton = undefined;
  await fake.stop();
});

const find = (channel: string, pattern: RegExp, threadTs?: string): FakeMessage | undefined =>
  fake.botMessages(channel, threadTs).find((m) => pattern.test(visibleText(m)));

function mention(text: string, user = ALICE): string {
  const ts = fake.nextTs();
  fake.event({ type: "app_mention", channel: CHANNEL, channel_type: "channel", user, text: `<@U0BATON> ${text}`, ts });
  return ts;
}

describe("slack end to end with the demo agent", () => {
  test("a mention gets an answer in its thread, streamed by chat.update; follow-ups there need no mention", async () => {
    const mentionTs = mention("demo:slow");
    // The slow demo turn writes a line every 500 ms: one message, edited as it grows.
    const reply = await eventually(() => find(CHANNEL, /step 3/, mentionTs), E2E_TIMEOUT_MS, "three streamed steps");
    expect(reply.history.length).toBeGreaterThanOrEqual(3);
    for (const earlier of reply.history.slice(0, -1)) expect(visibleText(reply).startsWith(earlier.replace(/…$/, ""))).toBe(true);
    expect(fake.callsTo("chat.update").filter((c) => c.params.ts === reply.ts).length).toBeGreaterThanOrEqual(2);
    // The working reaction is on the prompt while the turn runs.
    expect([...fake.reactions]).toEqual([`${CHANNEL}:${mentionTs}:hourglass_flowing_sand`]);

    // A command in the thread, no mention: the turn stops and the reaction goes.
    fake.event({ type: "message", channel: CHANNEL, channel_type: "channel", user: ALICE, text: "/stop", ts: fake.nextTs(), thread_ts: mentionTs });
    await eventually(() => fake.reactions.size === 0, E2E_TIMEOUT_MS, "the reaction removed");

    fake.event({ type: "message", channel: CHANNEL, channel_type: "channel", user: ALICE, text: "again", ts: fake.nextTs(), thread_ts: mentionTs });
    await eventually(() => find(CHANNEL, /^Turn 2 of session .*: you said "again"$/, mentionTs), E2E_TIMEOUT_MS, "the follow-up reply in the same session");
    expect(fake.botMessages(CHANNEL).every((m) => m.thread_ts === mentionTs)).toBe(true);
  });

  test("/baton status answers in the DM it was typed in", async () => {
    fake.event({ type: "message", channel: "D0ALICE", channel_type: "im", user: ALICE, text: "hi", ts: fake.nextTs() });
    await eventually(() => find("D0ALICE", /you said "hi"/), E2E_TIMEOUT_MS, "the DM reply");
    await fake.slashCommand({ user_id: ALICE, channel_id: "D0ALICE", text: "status" });
    const status = await eventually(() => find("D0ALICE", /\*Thread:\*/), E2E_TIMEOUT_MS, "the status");
    expect(visibleText(status)).toContain("`slack:T0FAKE/D0ALICE`");
    expect(visibleText(status)).toMatch(/\*Session:\* `[^`]+`/);
  });
});

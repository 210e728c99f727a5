// End to end: `baton start` as a user runs it (bin/baton.js, the shipped bundle) with the demo ACP
// agent, talking to the fake Slack over Socket Mode. What a Slack user would see, beyond the shared
// platform contract (test/platforms/slack.contract.test.ts): threads, the working reaction, /baton.
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { FakeSlack, visibleText, type FakeMessage } from "../../fakes/slack/index.js";
import { shippedConfig, startShippedBaton, type ShippedBaton } from "../../support/shipped-baton.js";
import { eventually } from "./helpers.js";

const ALICE = "U111";
const CHANNEL = "C0GENERAL";
const E2E_TIMEOUT_MS = 20_000;

let fake: FakeSlack;
let baton: ShippedBaton | undefined;

beforeEach(async () => {
  fake = await new FakeSlack().start();
  const slack = { bot_token: fake.options.botToken, app_token: fake.options.appToken, api_url: fake.apiUrl, min_edit_gap_ms: 100 };
  baton = await startShippedBaton(shippedConfig({ access: { allow: [`slack:${ALICE}`] }, platforms: { slack } }), { prefix: "baton-slack-e2e-" });
});

afterEach(async () => {
  const stopped = baton;
  baton = undefined;
  await stopped?.stop();
  await fake.stop();
  // Nothing went wrong on the way, and no token reached the log.
  expect(stopped?.problems()).toEqual([]);
  const logged =
    stopped
      ?.log()
      .map((l) => JSON.stringify(l))
      .join("\n") ?? "";
  expect(logged).not.toContain(fake.options.botToken);
  expect(logged).not.toContain(fake.options.appToken);
});

const find = (channel: string, pattern: RegExp, threadTs?: string): FakeMessage | undefined => fake.botMessages(channel, threadTs).find((m) => pattern.test(visibleText(m)));

function mention(text: string, user = ALICE): string {
  const ts = fake.nextTs();
  fake.event({ type: "app_mention", channel: CHANNEL, channel_type: "channel", user, text: `<@U0BATON> ${text}`, ts });
  return ts;
}

describe("slack end to end with the demo agent", () => {
  test("a mention gets an answer in its thread, streamed by chat.update; follow-ups there need no mention", async () => {
    const mentionTs = mention("demo:slow");
    // The slow demo turn writes a line every 500 ms: one message, edited as it grows (at most one
    // call a second in a channel, Slack's pace for posts).
    const reply = await eventually(() => find(CHANNEL, /step 5/, mentionTs), E2E_TIMEOUT_MS, "five streamed steps");
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

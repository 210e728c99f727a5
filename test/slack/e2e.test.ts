// End to end: the real Baton core with the bundled demo ACP agent, talking through the Slack
// adapter to the fake Slack over Socket Mode. What a Slack user would see.
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSlackAdapter, type SlackAdapter } from "../../src/platforms/slack/index.js";
import { slackConfigSchema } from "../../src/platforms/slack/config.js";
import { FakeSlack, visibleText, type FakeMessage } from "../fakes/slack/index.js";
import { startTestBaton, type TestBaton } from "../support/harness.js";
import { eventually } from "./helpers.js";

const ALICE = "U111"; // in the harness's access.allow as slack:U111
const STRANGER = "U999";
const CHANNEL = "C0GENERAL";
const E2E_TIMEOUT_MS = 20_000;

let fake: FakeSlack;
let adapter: SlackAdapter;
let baton: TestBaton | undefined;
let cacheRoot: string;

beforeEach(async () => {
  fake = await new FakeSlack().start();
  cacheRoot = await mkdtemp(join(tmpdir(), "baton-slack-e2e-"));
  const config = slackConfigSchema.parse({ bot_token: fake.options.botToken, app_token: fake.options.appToken, api_url: fake.apiUrl, min_edit_gap_ms: 100 });
  adapter = createSlackAdapter("slack", config, { dataDir: cacheRoot, cacheDir: join(cacheRoot, "cache") }, { retryConfig: { retries: 0 } });
  baton = await startTestBaton({ adapters: [adapter] });
});

afterEach(async () => {
  await baton?.stop({ cleanup: true });
  baton = undefined;
  await fake.stop();
  await rm(cacheRoot, { recursive: true, force: true });
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

  test("a stranger is told their id once and never reaches the agent", async () => {
    fake.event({ type: "message", channel: "D0MALLORY", channel_type: "im", user: STRANGER, text: "let me in", ts: fake.nextTs() });
    const refusal = await eventually(() => fake.botMessages("D0MALLORY")[0] ?? fake.ephemerals.find((e) => e.user === STRANGER), E2E_TIMEOUT_MS, "the refusal");
    expect(visibleText(refusal)).toContain("slack:U999");
    fake.event({ type: "message", channel: "D0MALLORY", channel_type: "im", user: STRANGER, text: "please", ts: fake.nextTs() });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(fake.botMessages("D0MALLORY").some((m) => /Turn \d/.test(visibleText(m)))).toBe(false);
  });

  test("/baton status answers in the DM it was typed in", async () => {
    fake.event({ type: "message", channel: "D0ALICE", channel_type: "im", user: ALICE, text: "hi", ts: fake.nextTs() });
    await eventually(() => find("D0ALICE", /you said "hi"/), E2E_TIMEOUT_MS, "the DM reply");
    await fake.slashCommand({ user_id: ALICE, channel_id: "D0ALICE", text: "status" });
    const status = await eventually(() => find("D0ALICE", /\*Thread:\*/), E2E_TIMEOUT_MS, "the status");
    expect(visibleText(status)).toContain("`slack:T0FAKE/D0ALICE`");
    expect(visibleText(status)).toMatch(/\*Session:\* `[^`]+`/);
  });

  test("an approval by button: a stranger's press is refused ephemerally, the user's press decides", async () => {
    const mentionTs = mention("demo:permission");
    const request = await eventually(() => fake.botMessages(CHANNEL, mentionTs).find((m) => m.blocks?.some((b) => b.type === "actions")), E2E_TIMEOUT_MS, "the approval request");
    const buttons = request.blocks!.find((b) => b.type === "actions").elements;
    expect(buttons.map((b: { text: { text: string } }) => b.text.text)).toEqual(expect.arrayContaining(["Allow once", "Reject"]));
    const allowOnce = buttons.find((b: { text: { text: string } }) => b.text.text === "Allow once");

    await fake.pressButton({ user_id: STRANGER, message: request, action_id: allowOnce.action_id });
    const refusal = await eventually(() => fake.ephemerals[0], E2E_TIMEOUT_MS, "the stranger's refusal");
    expect(refusal).toMatchObject({ user: STRANGER, channel: CHANNEL, thread_ts: mentionTs });
    expect(visibleText(refusal)).toContain("slack:U999");
    expect(request.blocks!.some((b) => b.type === "actions")).toBe(true);

    await fake.pressButton({ user_id: ALICE, message: request, action_id: allowOnce.action_id });
    await eventually(() => find(CHANNEL, /Permission answer: allow-once\./, mentionTs), E2E_TIMEOUT_MS, "the turn to continue");
    await eventually(
      () => !request.blocks!.some((b) => b.type === "actions") && /allow/i.test(visibleText(request)) && /U111|u111/.test(visibleText(request)),
      E2E_TIMEOUT_MS,
      "the decision on the request",
    );
    expect(fake.ephemerals).toHaveLength(1);
  });

  test("a 20 KB markdown reply arrives as several messages, in order, each section within Slack's limit", async () => {
    const mentionTs = mention("demo:long");
    await eventually(() => find(CHANNEL, /The end\./, mentionTs), E2E_TIMEOUT_MS, "the end of the long reply");
    // The turn is over (its reaction gone) before the transcript is read: no edit is still on its way.
    await eventually(() => fake.reactions.size === 0, E2E_TIMEOUT_MS, "the end of the turn");
    const sent = fake.botMessages(CHANNEL, mentionTs);
    expect(sent.length).toBeGreaterThanOrEqual(5);
    for (const message of sent) for (const block of message.blocks ?? []) if (block.type === "section") expect(block.text.text.length).toBeLessThanOrEqual(3000);
    const all = sent.map(visibleText).join("\n");
    const sectionCount = (all.match(/^\*?Section \d+\*?$/gm) ?? []).length;
    expect(sectionCount).toBeGreaterThan(10);
    let last = -1;
    for (let section = 1; section <= sectionCount; section++) {
      const at = all.search(new RegExp(`^\\*?Section ${section}\\*?$`, "m"));
      expect(at, `section ${section}`).toBeGreaterThan(last);
      last = at;
    }
    expect(all.indexOf("The end.")).toBeGreaterThan(last);
  });
});

// A start that survives Slack having trouble, through the shipped CLI (bin/baton.js): auth.test
// answered `internal_error` (Slack's side, like a 5xx) leaves Slack degraded and retried until it
// connects and answers; `invalid_auth` (a refused token) still stops the start with its message.
import { afterEach, describe, expect, test } from "vitest";
import { FakeSlack, visibleText } from "../../fakes/slack/index.js";
import { shippedConfig, startShippedBaton, type ShippedBaton } from "../../support/shipped-baton.js";
import { eventually } from "./helpers.js";

const ALICE = "U111";
const CHANNEL = "C0GENERAL";
const WAIT_MS = 30_000;
const TROUBLED_ATTEMPTS = 3;

let fake: FakeSlack | undefined;
let baton: ShippedBaton | undefined;
afterEach(async () => {
  await baton?.stop();
  await fake?.stop();
  baton = fake = undefined;
});

function config(slack: FakeSlack): string {
  return shippedConfig({ access: { allow: [`slack:${ALICE}`] }, platforms: { slack: { bot_token: slack.options.botToken, app_token: slack.options.appToken, api_url: slack.apiUrl } } });
}

describe("slack at start", { timeout: 90_000 }, () => {
  test("Slack having trouble (internal_error): degraded, retried, then connected and answering", async () => {
    fake = await new FakeSlack().start();
    for (let i = 0; i < TROUBLED_ATTEMPTS; i++) fake.failNext("auth.test", "internal_error");
    baton = await startShippedBaton(config(fake), { prefix: "baton-slack-degraded-" });
    expect(baton.stdout()).toMatch(/^slack: Slack is having trouble \(internal_error\)\. Baton keeps trying/m);
    await eventually(() => /^slack: connected as @baton/m.test(baton!.stdout()), WAIT_MS, "Slack connected");
    expect(fake.calls.filter((c) => c.method === "auth.test").length).toBe(TROUBLED_ATTEMPTS + 1);
    const ts = fake.nextTs();
    fake.event({ type: "app_mention", channel: CHANNEL, channel_type: "channel", user: ALICE, text: "<@U0BATON> hello after the trouble", ts });
    await eventually(() => fake!.botMessages(CHANNEL, ts).find((m) => /you said "hello after the trouble"/.test(visibleText(m))), WAIT_MS, "the answer");
    // Warned about, never logged as an error: nothing needed the operator.
    expect(baton.problems()).toEqual([]);
    expect(baton.log().some((l) => l.level === 40 && l.platform === "slack" && /could not be reached at start/.test(String(l.msg)))).toBe(true);
  });

  test("a refused token (invalid_auth) still stops the start", async () => {
    fake = await new FakeSlack().start();
    fake.failNext("auth.test", "invalid_auth");
    await expect(startShippedBaton(config(fake), { prefix: "baton-slack-refused-" })).rejects.toThrow(
      /baton: could not start: Slack refused the bot token \(invalid_auth\); check platforms\.slack\.bot_token/,
    );
  });
});

// Slack user groups in access lists, over the wire (`baton start` as shipped, the fake Slack with
// usergroups.users.list, the demo agent): a group's member gets in, someone outside is refused with
// their id (an ephemeral only they see); a member taken out of the group in Slack is refused once
// access.group_ttl has passed; without the usergroups:read scope everyone in the group is refused,
// the reason logged; a binding's allow narrows who may talk in its channel.
import { tmpdir } from "node:os";
import { afterEach, describe, expect, test } from "vitest";
import { FakeSlack, visibleText } from "../../fakes/slack/index.js";
import { shippedConfig, startShippedBaton, type ShippedBaton } from "../../support/shipped-baton.js";
import { eventually } from "./helpers.js";

const ANA = "U0ANA";
const BOB = "U0BOB";
const GENERAL = "C0GENERAL";
const WAIT_MS = 20_000;
const WITH_GROUPS = [
  "app_mentions:read",
  "chat:write",
  "channels:history",
  "groups:history",
  "im:history",
  "mpim:history",
  "commands",
  "reactions:write",
  "files:read",
  "files:write",
  "usergroups:read",
];

let fake: FakeSlack | undefined;
let baton: ShippedBaton | undefined;

afterEach(async () => {
  const stopped = baton;
  baton = undefined;
  await stopped?.stop();
  await fake?.stop();
  fake = undefined;
  expect(stopped?.problems()).toEqual([]);
});

async function boot(config: Record<string, unknown>, scopes = WITH_GROUPS): Promise<FakeSlack> {
  const slack = (fake = await new FakeSlack({ scopes }).start());
  const platform = { bot_token: slack.options.botToken, app_token: slack.options.appToken, api_url: slack.apiUrl, min_edit_gap_ms: 100 };
  baton = await startShippedBaton(shippedConfig({ ...config, platforms: { slack: platform } }), { prefix: "baton-slack-groups-" });
  return slack;
}

function mention(slack: FakeSlack, user: string, text: string, channel = GENERAL): void {
  slack.event({ type: "app_mention", channel, channel_type: "channel", user, text: `<@U0BATON> ${text}`, ts: slack.nextTs() });
}
const answered = (slack: FakeSlack, channel: string, pattern: RegExp) => slack.botMessages(channel).some((m) => pattern.test(visibleText(m)));
const toldPrivately = (slack: FakeSlack, user: string, pattern: RegExp) => slack.ephemerals.some((e) => e.user === user && pattern.test(e.text ?? ""));

describe("slack: user groups in access lists", { timeout: 90_000 }, () => {
  test("a group's member gets in, someone outside is refused with their id, a removed member after the TTL", async () => {
    const slack = await boot({ access: { allow: ["slack:group:S0DEVS"], roles: { admin: [] }, group_ttl: "1s" } });
    slack.userGroups.set("S0DEVS", [ANA]);
    mention(slack, ANA, "hello");
    await eventually(() => answered(slack, GENERAL, /you said "hello"/), WAIT_MS, "Ana's answer");
    mention(slack, BOB, "let me in");
    await eventually(() => toldPrivately(slack, BOB, /not allowed to use this bot\. Ask the operator to add `slack:U0BOB` to access\.allow/), WAIT_MS, "Bob's refusal");
    expect(answered(slack, GENERAL, /let me in/)).toBe(false);
    expect(slack.callsTo("usergroups.users.list").map((c) => c.params.usergroup)).toEqual(["S0DEVS", "S0DEVS"]);

    slack.userGroups.set("S0DEVS", [BOB]);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    mention(slack, ANA, "still here?");
    await eventually(() => toldPrivately(slack, ANA, /add `slack:U0ANA` to access\.allow/), WAIT_MS, "Ana's refusal");
    mention(slack, BOB, "now me");
    await eventually(() => answered(slack, GENERAL, /you said "(\[\w+\] )?now me"/), WAIT_MS, "Bob's answer");
    expect(answered(slack, GENERAL, /still here/)).toBe(false);
  });

  test("without the usergroups:read scope the group's members are refused, the reason logged", async () => {
    const slack = await boot(
      { access: { allow: ["slack:group:S0DEVS"], roles: { admin: [] } } },
      WITH_GROUPS.filter((s) => s !== "usergroups:read"),
    );
    slack.userGroups.set("S0DEVS", [ANA]);
    mention(slack, ANA, "hello");
    await eventually(() => toldPrivately(slack, ANA, /add `slack:U0ANA` to access\.allow/), WAIT_MS, "the refusal");
    const logged = baton!.log().find((line) => /could not look up whether the user is in a group/.test(line.msg ?? ""));
    expect(logged).toMatchObject({ principal: "slack:group:S0DEVS", user: "slack:U0ANA", level: 40 });
    expect(String(logged!.reason)).toMatch(/lacks the usergroups:read scope/);
  });

  test("a binding's allow narrows who may talk in its channel to a user group", async () => {
    const binding = { match: "slack:T0FAKE/C0API*", workspace: tmpdir(), allow: ["slack:group:S0API"] };
    const slack = await boot({ access: { allow: [`slack:${ANA}`, `slack:${BOB}`] }, bindings: [binding], workspaces: { roots: [tmpdir()] } });
    slack.userGroups.set("S0API", [ANA]);
    mention(slack, ANA, "api work", "C0API");
    await eventually(() => answered(slack, "C0API", /you said "api work"/), WAIT_MS, "Ana's answer in #api");
    mention(slack, BOB, "me too", "C0API");
    await eventually(
      () => toldPrivately(slack, BOB, /only for the people `slack:T0FAKE\/C0API\*` \(bindings\[0\] in the config\) allows\. An operator can add `slack:U0BOB` to that binding's allow/),
      WAIT_MS,
      "Bob's refusal in #api",
    );
    mention(slack, BOB, "elsewhere");
    await eventually(() => answered(slack, GENERAL, /you said "elsewhere"/), WAIT_MS, "Bob's answer in #general");
    expect(answered(slack, "C0API", /me too/)).toBe(false);
  });

  test("an admin through a user group answers someone else's approval with a press, looked up at the press", async () => {
    const slack = await boot({ access: { allow: [`slack:${BOB}`], roles: { admin: ["slack:group:S0LEADS"] } }, approvals: { by: "requester_or_admin" } });
    slack.userGroups.set("S0LEADS", [ANA]);
    mention(slack, BOB, "demo:permission");
    const request = await eventually(() => slack.botMessages(GENERAL).find((m) => /Permission needed/.test(visibleText(m)) && m.blocks), WAIT_MS, "the request");
    const allowOnce = request.blocks!.flatMap((b: any) => b.elements ?? []).find((e: any) => e.text?.text === "Allow once").action_id;
    // Bob's prompt asked about Bob (is he an admin?); Ana has not written yet.
    expect(slack.callsTo("usergroups.users.list")).toHaveLength(1);
    await slack.pressButton({ user_id: ANA, message: request, action_id: allowOnce });
    await eventually(() => answered(slack, GENERAL, /Permission answer: allow-once\./), WAIT_MS, "the agent told");
    expect(slack.callsTo("usergroups.users.list").map((c) => c.params.usergroup)).toEqual(["S0LEADS", "S0LEADS"]);
    // The request's edit and the agent's answer travel separately; either may land first.
    await eventually(() => /Allow once — by/.test(visibleText(slack.botMessages(GENERAL).find((m) => m.ts === request.ts)!)), WAIT_MS, "the request edited");
  });
});

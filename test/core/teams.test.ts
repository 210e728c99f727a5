// A team in one chat: roles (access.roles, access.commands), who may answer an approval
// (approvals.by), who may stop a turn, and prompts marked with their author once two people write.
// Over the test platform and the demo agent; the same over the Telegram wire in
// test/platforms/telegram/teams.test.ts.
import { tmpdir } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { startTestBaton, testConfig, type TestBaton } from "../support/harness.js";
import { TestPlatform, type RecordedMessage } from "../support/test-platform.js";

const ana = { id: "test:ana", name: "Ana" };
const bob = { id: "test:bob", name: "Bob" };
const cid = { id: "test:cid", name: "Cid" };
const ACCESS = { allow: [bob.id, cid.id], roles: { admin: [ana.id] } };

let baton: TestBaton | undefined;
afterEach(async () => {
  await baton?.stop({ cleanup: true });
  baton = undefined;
});

async function start(extra: Record<string, unknown> = {}): Promise<{ platform: TestPlatform; route: string }> {
  const platform = new TestPlatform("team");
  baton = await startTestBaton({ adapters: [platform], config: { access: ACCESS, ...extra } });
  return { platform, route: platform.route("room") };
}

const approvalButtons = (m: RecordedMessage) => (m.buttons ?? []).flat().map((b) => b.id);
const pending = (route: string) => baton!.daemon.core.approvals.pendingCount(baton!.daemon.core.registry.threadForRoute(route)!.id);

describe("roles", () => {
  it("refuses a member's /schedule add naming the role and their id; an admin's is accepted; access.commands moves it", async () => {
    const { platform, route } = await start();
    await platform.say(route, '/schedule add "0 9 * * 1-5" standup notes', bob);
    await platform.waitFor(route, /Adding a schedule needs the admin role; you \(`test:bob`\) are a member\. An operator can add `test:bob` to access\.roles\.admin\./);
    await platform.say(route, "/schedule list", bob);
    await platform.waitFor(route, /No schedules here/);
    await platform.say(route, '/schedule add "0 9 * * 1-5" standup notes', ana);
    const added = await platform.waitFor(route, /⏰ Scheduled `(\w+)`/);
    const id = /Scheduled `(\w+)`/.exec(added.text)![1];
    await platform.say(route, `/schedule rm ${id}`, bob);
    await platform.waitFor(route, /Removing a schedule needs the admin role/);

    // A reload: /schedule is a member's now, /status an admin's.
    const report = baton!.daemon.reload(() => testConfig({ config: { access: { ...ACCESS, commands: { schedule: "member", status: "admin" } } } }));
    expect(report).toMatchObject({ ok: true });
    await platform.say(route, `/schedule rm ${id}`, bob);
    await platform.waitFor(route, new RegExp(`Removed schedule \`${id}\``));
    await platform.say(route, "/status", bob);
    await platform.waitFor(route, /\/status needs the admin role; you \(`test:bob`\) are a member/);
  });

  it("keeps /switch, /workspace --switch and /new <workspace> to admins; a stranger is still refused", async () => {
    const { platform, route } = await start();
    await platform.say(route, "/switch host demo", bob);
    await platform.waitFor(route, /Switching this chat's agent needs the admin role/);
    await platform.say(route, `/workspace --switch ${process.cwd()}`, bob);
    await platform.waitFor(route, /Switching this chat to another workspace needs the admin role/);
    await platform.say(route, `/new ${tmpdir()}`, bob);
    await platform.waitFor(route, /Starting a thread in another workspace needs the admin role/);
    await platform.say(route, "/session --switch abcdef", bob);
    await platform.waitFor(route, /Switching this chat to another session needs the admin role/);
    await platform.say(route, "hello", { id: "test:eve", name: "Eve" });
    await platform.waitFor(route, /not allowed to use this bot.*test:eve/);
  });
});

describe("the web chat's token holder", () => {
  it("is an admin unless the config lists `web` as a member", async () => {
    // A platform that authenticates its users itself, as the web chat does with its token.
    const platform = new TestPlatform("webish", { usersAuthenticated: true });
    baton = await startTestBaton({ adapters: [platform], config: { access: { allow: [] } } });
    const route = platform.route("page");
    const holder = { id: "webish:browser1", name: "web" };
    await platform.say(route, '/schedule add "0 9 * * 1-5" standup notes', holder);
    await platform.waitFor(route, /⏰ Scheduled/);
    expect(baton.daemon.reload(() => testConfig({ config: { access: { roles: { member: ["webish:*"] } } } }))).toMatchObject({ ok: true });
    await platform.say(route, '/schedule add "0 10 * * 1-5" more notes', holder);
    await platform.waitFor(route, /Adding a schedule needs the admin role; you \(`webish:browser1`\) are a member/);
  });
});

describe("who answers an approval", () => {
  it("refuses a teammate's press privately and keeps the request open; the requester's press decides", async () => {
    const { platform, route } = await start();
    await platform.say(route, "demo:permission", bob);
    const request = await platform.waitFor(route, (m) => /Permission needed/.test(m.text) && approvalButtons(m).length > 0);
    const [allowOnce] = approvalButtons(request);
    const refused = await platform.press(route, allowOnce, cid);
    expect(refused).toEqual({ ok: false, text: "Only Bob (test:bob), who started this turn, or an admin may answer this request; you are test:cid. It stays open." });
    expect(pending(route)).toBe(1);
    expect(platform.transcript(route)).not.toMatch(/— by Cid/);
    // A typed answer from the teammate is refused too, and the request still open.
    await platform.say(route, "/allow", cid);
    await platform.waitFor(route, /Only Bob \(test:bob\).*you are test:cid/);
    expect(pending(route)).toBe(1);
    expect(await platform.press(route, allowOnce, bob)).toMatchObject({ ok: true });
    await platform.waitFor(route, (m) => m.id === request.id && /— by Bob/.test(m.text));
    await platform.waitFor(route, /Permission answer: allow-once\./);
  });

  it("an admin's press decides someone else's request; with approvals.by: requester it does not", async () => {
    const { platform, route } = await start();
    await platform.say(route, "demo:permission", bob);
    const request = await platform.waitFor(route, (m) => /Permission needed/.test(m.text) && approvalButtons(m).length > 0);
    expect(await platform.press(route, approvalButtons(request)[0], ana)).toMatchObject({ ok: true });
    await platform.waitFor(route, (m) => m.id === request.id && /— by Ana/.test(m.text));

    expect(baton!.daemon.reload(() => testConfig({ config: { access: ACCESS, approvals: { by: "requester" } } }))).toMatchObject({ ok: true });
    await platform.waitFor(route, /Permission answer: allow-once\./);
    await platform.say(route, "demo:permission", bob);
    const second = await platform.waitFor(route, (m) => m.id !== request.id && /Permission needed/.test(m.text) && approvalButtons(m).length > 0);
    expect(await platform.press(route, approvalButtons(second)[0], ana)).toEqual({
      ok: false,
      text: "Only Bob (test:bob), who started this turn may answer this request; you are test:ana. It stays open.",
    });
    expect(pending(route)).toBe(1);
  });

  it("with approvals.by: any_member a teammate's press decides", async () => {
    const { platform, route } = await start({ approvals: { by: "any_member" } });
    await platform.say(route, "demo:permission", bob);
    const request = await platform.waitFor(route, (m) => /Permission needed/.test(m.text) && approvalButtons(m).length > 0);
    expect(await platform.press(route, approvalButtons(request)[0], cid)).toMatchObject({ ok: true });
    await platform.waitFor(route, (m) => m.id === request.id && /— by Cid/.test(m.text));
  });
});

describe("who stops a turn", () => {
  it("refuses a member's /stop of another's turn; the author and an admin may stop it", async () => {
    const { platform, route } = await start();
    await platform.say(route, "demo:slow 20", bob);
    await platform.waitFor(route, /Working… step 1/);
    await platform.say(route, "/stop", cid);
    await platform.waitFor(route, /Stopping Bob's turn needs the admin role; you \(`test:cid`\) are a member/);
    await platform.say(route, "/stop", ana);
    const stopped = await platform.waitFor(route, /⏹ Stopped\./);
    await platform.say(route, "demo:slow 20", bob);
    await platform.waitFor(route, (m) => /Working… step 1/.test(m.text) && m.id !== stopped.id);
    await platform.say(route, "/stop", bob);
    await platform.waitFor(route, () => platform.on(route).filter((x) => /⏹ Stopped\./.test(x.text)).length === 2);
  });
});

describe("who said what", () => {
  it("marks each prompt with its author once a second person writes in the thread, not before", async () => {
    const { platform, route } = await start();
    await platform.say(route, "first", bob);
    await platform.waitFor(route, /you said "first"/);
    await platform.say(route, "second", bob);
    await platform.waitFor(route, /you said "second"/);
    await platform.say(route, "fix the flaky test", cid);
    await platform.waitFor(route, /you said "\[Cid\] fix the flaky test"/);
    await platform.say(route, "and the docs", bob);
    await platform.waitFor(route, /you said "\[Bob\] and the docs"/);
    expect(platform.transcript(route)).not.toMatch(/\[Bob\] (first|second)/);
  });
});

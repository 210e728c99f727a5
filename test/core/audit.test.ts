// The audit trail as the core records it, over the test platform and the demo agent: a stranger's
// refusal, role decisions on commands (refused and allowed, with the command line scrubbed of
// secrets), approval answers (a refused press, the decision with the agent and what it asked to
// run; one left unanswered when its turn was stopped), and each turn with its author, agent,
// workspace and usage — all in the event log, under their thread, with the person access.people
// makes of the account.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AuditEvent } from "../../src/threads/audit.js";
import { readJsonlAudit } from "../../src/threads/audit-read.js";
import { startTestBaton, type TestBaton } from "../support/harness.js";
import { TestPlatform, type RecordedMessage } from "../support/test-platform.js";

const ana = { id: "test:ana", name: "Ana" };
const ana2 = { id: "other:ana", name: "Ana on the other platform" };
const bob = { id: "test:bob", name: "Bob" };
const eve = { id: "test:eve", name: "Eve" };
const ACCESS = { allow: [bob.id, ana2.id], roles: { admin: [ana.id] }, people: { ana: [ana.id, ana2.id] } };
const TURN_MS = 20_000;

let baton: TestBaton | undefined;
afterEach(async () => {
  await baton?.stop({ cleanup: true });
  baton = undefined;
});

async function start(extra: Record<string, unknown> = {}, now?: () => number): Promise<{ platform: TestPlatform; route: string }> {
  const platform = new TestPlatform("test");
  baton = await startTestBaton({ adapters: [platform], config: { access: ACCESS, ...extra }, now });
  return { platform, route: platform.route("room") };
}

const events = () => readJsonlAudit(join(baton!.dataDir, "threads", "events.jsonl"), {});
async function eventually(match: (events: AuditEvent[]) => boolean): Promise<AuditEvent[]> {
  let last: AuditEvent[] = [];
  const deadline = Date.now() + TURN_MS;
  while (Date.now() < deadline) {
    last = await events();
    if (match(last)) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`audit events never matched; they are:\n${last.map((e) => JSON.stringify(e)).join("\n")}`);
}
const approvalButtons = (m: RecordedMessage) => (m.buttons ?? []).flat().map((b) => b.id);

describe("the audit trail", () => {
  it("records a stranger's refusal, and a member's refused and an admin's allowed admin command, the line scrubbed", async () => {
    const { platform, route } = await start();
    await platform.say(route, "hello", eve);
    await platform.waitFor(route, /not allowed to use this bot/);
    await platform.say(route, '/schedule add "0 9 * * 1-5" standup', bob);
    await platform.waitFor(route, /needs the admin role/);
    await platform.say(route, '/schedule add "0 9 * * 1-5" deploy with ghp_abcdefghijklmnopqrstuvwxyz0123456789', ana);
    await platform.waitFor(route, /⏰ Scheduled/);
    const all = await eventually((es) => es.some((e) => e.action === "command" && e.outcome === "allowed"));
    expect(all.find((e) => e.action === "access")).toMatchObject({ outcome: "refused", user: eve.id, person: eve.id, platform: "test", route, detail: "a message" });
    expect(all.find((e) => e.action === "command" && e.outcome === "refused")).toMatchObject({ user: bob.id, role: "member", needed: "admin", command: '/schedule add "0 9 * * 1-5" standup' });
    const allowed = all.find((e) => e.action === "command" && e.outcome === "allowed")!;
    expect(allowed).toMatchObject({ user: ana.id, person: "ana", name: "Ana", role: "admin", needed: "admin", detail: "Adding a schedule" });
    expect(allowed.command).toMatch(/^\/schedule add "0 9 \* \* 1-5" deploy with /);
    expect(JSON.stringify(all)).not.toContain("ghp_abcdefghijklmnopqrstuvwxyz0123456789");
  });

  it("records approval answers (a refused press, the decision) and each turn with its author, agent, workspace and usage", async () => {
    const { platform, route } = await start();
    await platform.say(route, "demo:permission", ana2);
    const request = await platform.waitFor(route, (m) => /Permission needed/.test(m.text) && approvalButtons(m).length > 0);
    const [allowOnce] = approvalButtons(request);
    expect(await platform.press(route, allowOnce, bob)).toMatchObject({ ok: false });
    expect(await platform.press(route, allowOnce, ana2)).toMatchObject({ ok: true });
    await platform.waitFor(route, /Permission answer: allow-once\./);
    await platform.say(route, "hello again", ana);
    await platform.waitFor(route, /you said ".*hello again"/, TURN_MS);
    const thread = baton!.daemon.core.registry.threadForRoute(route)!;
    const all = await eventually((es) => es.filter((e) => e.action === "turn").length === 2);
    const approvals = all.filter((e) => e.action === "approval");
    expect(approvals.map((e) => [e.user, e.outcome])).toEqual([
      [bob.id, "refused"],
      [ana2.id, "allow_once"],
    ]);
    expect(approvals[1]).toMatchObject({ thread: thread.id, person: "ana", agent: "demo", command: "rm -rf build/", requester: ana2.id, detail: "Allow once" });
    const turns = all.filter((e) => e.action === "turn");
    for (const turn of turns) {
      expect(turn).toMatchObject({ thread: thread.id, person: "ana", outcome: "done", agent: "demo", workspace: thread.workspace });
      expect(turn.usage?.totalTokens).toBeGreaterThan(0);
      // The demo agent reports its session's running cost; each turn's own is recorded.
      expect(turn.usage?.cost).toEqual({ amount: expect.closeTo(0.0012, 6), currency: "USD" });
      expect(turn.ms).toBeGreaterThanOrEqual(0);
    }
    expect(turns.map((t) => t.user)).toEqual([ana2.id, ana.id]);
  });

  it("records a request its turn's /stop left unanswered as cancelled, as the requester's", async () => {
    const { platform, route } = await start();
    await platform.say(route, "demo:permission", bob);
    await platform.waitFor(route, (m) => /Permission needed/.test(m.text) && approvalButtons(m).length > 0);
    await platform.say(route, "/stop", bob);
    await platform.waitFor(route, /⏹ Cancelled/);
    const all = await eventually((es) => es.some((e) => e.action === "approval"));
    expect(all.filter((e) => e.action === "approval")).toEqual([
      expect.objectContaining({ outcome: "cancelled", user: bob.id, person: bob.id, requester: bob.id, route, agent: "demo", command: "rm -rf build/" }),
    ]);
  });

  it("records a prompt refused over a person's limit, with the limit and when it resets", async () => {
    // The limits' clock stands still: on the wall clock the two prompts could fall in two hours.
    const at = Date.UTC(2026, 11, 5, 7, 37);
    const { platform, route } = await start({ limits: { per_person: { turns_per_hour: 1 } }, time_zone: "UTC" }, () => at);
    await platform.say(route, "first", bob);
    await platform.waitFor(route, /you said "first"/, TURN_MS);
    await platform.say(route, "second", bob);
    await platform.waitFor(route, /limits\.per_person\.turns_per_hour/);
    const all = await eventually((es) => es.some((e) => e.action === "limit"));
    expect(all.find((e) => e.action === "limit")).toMatchObject({ outcome: "refused", user: bob.id, person: bob.id, route, thread: baton!.daemon.core.registry.threadForRoute(route)!.id });
    expect(all.find((e) => e.action === "limit")!.detail).toMatch(/limit of 1 .*\(limits\.per_person\.turns_per_hour\)\. It resets at 08:00 UTC, in 23 min\./);
  });

  it("records each subagent round as a turn of the person whose prompt started the thread's turn", async () => {
    const { platform, route } = await start();
    await platform.say(route, "demo:subagents", ana);
    await platform.waitFor(route, /Subagent reports:/, 60_000);
    const thread = baton!.daemon.core.registry.threadForRoute(route)!;
    const all = await eventually((es) => es.filter((e) => e.action === "turn").length === 3);
    const rounds = all.filter((e) => e.action === "turn" && /^subagent /.test(e.detail ?? ""));
    expect(rounds.map((e) => e.detail).sort()).toEqual(["subagent alpha", "subagent beta"]);
    for (const round of rounds) {
      expect(round).toMatchObject({ thread: thread.id, user: ana.id, person: "ana", agent: "demo", outcome: "done" });
      expect(round.usage?.cost).toEqual({ amount: expect.closeTo(0.0012, 6), currency: "USD" });
    }
  }, 90_000);
});

// `baton audit` as shipped (bin/baton.js), over a Telegram group (the wire fake) and the demo agent,
// on the JSONL event log and on PostgreSQL (store.url): a person's turns and approvals (one left
// open when Baton stopped: expired) are listed after a restart and after the start's compaction
// dropped her events older than audit.keep; a stranger's refusal and a member's refused admin
// command appear; --since and --thread filter; it reads the store while the daemon runs and after
// it stopped.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSince } from "../../src/bot/cli-audit.js";
import { makeEvent, type ThreadEvent } from "../../src/threads/events.js";
import type { BotMessage, FakeBotApi } from "../fakes/telegram/fake-bot-api.js";
import { groupChat, user } from "../fakes/telegram/fake-chats.js";
import { shippedOnTelegram, waitFor } from "../platforms/telegram/helpers.js";
import { postgresMissing, startTestPostgres, type TestPostgres } from "../support/postgres.js";
import { closedPort } from "../support/closed-port.js";
import { testTempDir } from "../support/temp.js";

const ana = user(111, "Ana", "ana");
const bob = user(222, "Bob", "bob");
const eve = user(444, "Eve", "eve");
const group = groupChat(-100600, "team");
const WAIT_MS = 25_000;
const DAY_MS = 86_400_000;
const BATON = join(process.cwd(), "bin", "baton.js");
const missingPostgres = postgresMissing();

const shipped = shippedOnTelegram("baton-audit-");
let server: TestPostgres | undefined;

beforeAll(async () => {
  if (!missingPostgres) server = await startTestPostgres();
}, 60_000);
afterAll(async () => {
  await server?.close();
});

/** Ana's turns from before: one past audit.keep (60 days), one within it, in a thread of their own. */
function oldEvents(): ThreadEvent[] {
  const ago = (days: number) => new Date(Date.now() - days * DAY_MS);
  const turn = (days: number, detail: string) =>
    makeEvent("th_0ld", { type: "audit", action: "turn", outcome: "done", user: "telegram:111", person: "ana", agent: "demo", workspace: "/old", detail }, ago(days));
  return [turn(100, "past audit.keep"), turn(30, "within audit.keep")];
}

interface Store {
  name: string;
  skip?: string;
  /** Extra config, with the old events already in the store. */
  prepare(dir: string): Promise<Record<string, unknown>>;
}

const STORES: Store[] = [
  {
    name: "the JSONL event log",
    async prepare(dir) {
      mkdirSync(join(dir, "data", "threads"), { recursive: true });
      writeFileSync(
        join(dir, "data", "threads", "events.jsonl"),
        oldEvents()
          .map((e) => `${JSON.stringify(e)}\n`)
          .join(""),
      );
      return {};
    },
  },
  {
    name: "PostgreSQL",
    skip: missingPostgres,
    async prepare() {
      const { url, pool } = await server!.migratedPool();
      const client = await pool.connect();
      try {
        // Written as a leader writes: in a transaction that declares the (first) epoch.
        await client.query("BEGIN");
        await client.query("SELECT set_config('baton.epoch', '0', true)");
        for (const e of oldEvents()) await client.query("INSERT INTO baton_thread_events (id, thread, body, epoch) VALUES ($1, $2, $3, 0)", [e.id, e.thread, JSON.stringify(e)]);
        await client.query("COMMIT");
      } finally {
        client.release();
      }
      return { store: { url, lease_ms: 2000, renew_ms: 500 } };
    },
  },
];

/** Everything the store holds, as text. */
async function storedText(dir: string, extra: Record<string, unknown>): Promise<string> {
  const url = (extra.store as { url?: string } | undefined)?.url;
  if (!url) return readFileSync(join(dir, "data", "threads", "events.jsonl"), "utf8");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ body: unknown }>("SELECT body FROM baton_thread_events ORDER BY seq")).rows.map((r) => JSON.stringify(r.body)).join("\n");
  } finally {
    await client.end();
  }
}

function audit(dir: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [BATON, "audit", ...args, "--config", join(dir, "baton.yaml"), "--data-dir", join(dir, "data")], { encoding: "utf8" });
}
function auditJson(dir: string, ...args: string[]): Array<Record<string, unknown>> {
  const run = audit(dir, "--json", ...args);
  expect(run.status, run.stderr).toBe(0);
  return run.stdout
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

const said = (api: FakeBotApi, pattern: RegExp): BotMessage | undefined => api.sentTo(group.id).find((m) => pattern.test(m.text));
const mention = (api: FakeBotApi, text: string) => `@${api.bot.username} ${text}`;

describe.each(STORES)("baton audit on $name", { timeout: 150_000 }, (store) => {
  it.skipIf(store.skip)("lists a person's turns and approvals after a restart and a compaction; refusals and admin commands appear; --since and --thread filter", async () => {
    const dir = testTempDir("baton-audit-");
    const extra = await store.prepare(dir);
    const api = await shipped.start({ allow: ["telegram:222"], roles: { admin: ["telegram:111"] }, people: { ana: ["telegram:111"] } }, { config: { ...extra, audit: { keep: "60d" } }, dir });

    api.userSends({ chat: group, from: ana, text: mention(api, "demo:permission") });
    const request = await waitFor(() => api.sentTo(group.id).find((m) => /Permission needed/.test(m.text) && m.replyMarkup), "the request", WAIT_MS);
    const allowOnce = request.replyMarkup!.inline_keyboard.flat().find((b) => b.text === "Allow once")!.callback_data;
    api.userPresses(bob, request, allowOnce);
    await waitFor(() => api.callsOf("answerCallbackQuery").find((c) => c.params.show_alert === true), "bob's alert", WAIT_MS);
    api.userPresses(ana, request, allowOnce);
    await waitFor(() => said(api, /Permission answer: allow-once\./), "the answer", WAIT_MS);
    api.userSends({ chat: group, from: bob, text: '/schedule add "0 9 * * 1-5" standup' });
    await waitFor(() => said(api, /Adding a schedule needs the admin role/), "bob's refusal", WAIT_MS);
    api.userSends({ chat: group, from: ana, text: '/schedule add "0 9 * * 1-5" standup' });
    await waitFor(() => said(api, /⏰ Scheduled/), "ana's schedule", WAIT_MS);
    api.userSends({ chat: group, from: eve, text: mention(api, "let me in") });
    await waitFor(() => said(api, /not allowed to use this bot/), "eve's refusal", WAIT_MS);

    // Read while the daemon runs; her turn is recorded once its end has been delivered.
    await waitFor(() => (auditJson(dir, "--person", "ana").some((e) => e.action === "turn" && e.thread !== "th_0ld") ? true : undefined), "ana's turn in the trail", WAIT_MS);
    // A request still open when Baton stops expires unanswered, and is audited as hers.
    api.userSends({ chat: group, from: ana, text: mention(api, "demo:permission") });
    await waitFor(() => api.sentTo(group.id).filter((m) => /Permission needed/.test(m.text)).length === 2, "the second request", WAIT_MS);
    await shipped.restart();

    const hers = auditJson(dir, "--person", "ana");
    expect(hers.every((e) => e.person === "ana" && e.user === "telegram:111")).toBe(true);
    expect(hers.filter((e) => e.action === "turn").map((e) => [e.outcome, e.detail])).toEqual([
      ["done", "within audit.keep"],
      ["done", undefined],
      ["cancelled", undefined],
    ]);
    const thread = hers.find((e) => e.action === "turn" && e.thread !== "th_0ld")!.thread as string;
    expect(hers.find((e) => e.action === "approval")).toMatchObject({ outcome: "allow_once", thread, agent: "demo", command: "rm -rf build/", detail: "Allow once" });
    expect(hers.find((e) => e.action === "approval" && e.outcome === "expired")).toMatchObject({
      requester: "telegram:111",
      thread,
      agent: "demo",
      command: "rm -rf build/",
      detail: "Baton restarted before this was answered",
    });
    expect(hers.find((e) => e.action === "command")).toMatchObject({ outcome: "allowed", role: "admin", command: '/schedule add "0 9 * * 1-5" standup' });
    // The event past audit.keep is gone from the store itself, not only from the listing.
    expect(await storedText(dir, extra)).not.toContain("past audit.keep");

    const everyone = auditJson(dir);
    expect(everyone.find((e) => e.action === "access")).toMatchObject({ outcome: "refused", user: "telegram:444" });
    expect(everyone.find((e) => e.action === "approval" && e.outcome === "refused")).toMatchObject({ user: "telegram:222", requester: "telegram:111" });
    expect(everyone.find((e) => e.action === "command" && e.outcome === "refused")).toMatchObject({ user: "telegram:222", role: "member", needed: "admin" });
    expect(auditJson(dir, "--since", "7d").some((e) => e.thread === "th_0ld")).toBe(false);
    expect(auditJson(dir, "--thread", "th_0ld").map((e) => e.detail)).toEqual(["within audit.keep"]);
    expect(auditJson(dir, "--person", "telegram:222").every((e) => e.user === "telegram:222")).toBe(true);

    await shipped.baton().stop();
    // Stopped: the same, in short lines.
    const lines = audit(dir, "--person", "ana");
    expect(lines.status, lines.stderr).toBe(0);
    expect(lines.stdout).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}ana \(telegram:111\) turn done in th_0ld \(demo, \/old\) — within audit\.keep$/m);
    expect(lines.stdout).toMatch(/ana \(telegram:111\) answered "Allow once" to demo's "rm -rf build\/" in th_\w+$/m);
    expect(lines.stdout).toMatch(/ana \(telegram:111\): demo's "rm -rf build\/" in th_\w+ expired unanswered \(Baton restarted before this was answered\)$/m);
    expect(lines.stdout).toMatch(/ana \(telegram:111\) turn done in th_\w+ \(demo, .+\): \d+ s, [\d,]+ tokens, \$0\.0012$/m);
    const all = audit(dir).stdout;
    expect(all).toMatch(/@?bob \(telegram:222\) may not answer demo's "rm -rf build\/" in th_\w+ \(turn of telegram:111\)$/m);
    expect(all).toMatch(/@?bob \(telegram:222\) \/schedule add "0 9 \* \* 1-5" standup in th_\w+: refused, needs admin \(is member\)$/m);
    expect(all).toMatch(/ana \(telegram:111\) \/schedule add "0 9 \* \* 1-5" standup in th_\w+: allowed \(admin\)$/m);
    expect(all).toMatch(/@?eve \(telegram:444\) was refused in th_\w+: not allowed to use Baton \(a message\)$/m);
    expect(audit(dir, "--thread", "th_none").stdout).toBe("No audit events in th_none.\n");
    expect(audit(dir, "--since", "tomorrow").stderr).toMatch(/--since tomorrow: expected a span/);
  });
});

describe("baton audit on a store it cannot read", () => {
  it("names the database it cannot reach (no password) and exits 1", async () => {
    const dir = testTempDir("baton-audit-");
    const port = await closedPort();
    writeFileSync(join(dir, "baton.yaml"), `store: { url: "postgres://baton:s3cret-pw@127.0.0.1:${port}/baton" }\n`);
    const run = audit(dir);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^baton: cannot reach PostgreSQL at postgres://baton@127\\.0\\.0\\.1:${port}/baton \\(store\\.url\\)`));
    expect(run.stderr).not.toContain("s3cret-pw");
  });
});

describe("--since", () => {
  it("takes a span back from now or a date, and refuses anything else in plain words", () => {
    const now = Date.parse("2026-12-05T12:00:00Z");
    expect(parseSince("30m", now)).toBe(now - 30 * 60_000);
    expect(parseSince("12h", now)).toBe(now - 12 * 3_600_000);
    expect(parseSince("7d", now)).toBe(now - 7 * DAY_MS);
    expect(parseSince("2w", now)).toBe(now - 14 * DAY_MS);
    expect(parseSince("2026-12-01T09:00:00Z", now)).toBe(Date.parse("2026-12-01T09:00:00Z"));
    expect(parseSince("2026-12-01", now)).toBe(Date.parse("2026-12-01"));
    for (const bad of ["yesterday", "7", "7y", "12/01/2026", ""]) expect(() => parseSince(bad, now)).toThrow(/expected a span back from now/);
  });
});

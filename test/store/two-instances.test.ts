// Two `baton start` processes (the shipped CLI) on one PostgreSQL and the Telegram wire fake: one
// leads and answers, the other stands by; kill -9 of the leader, and the standby leads within 10 s,
// with the thread the leader had (the event log is in the database), reading Telegram on from the
// offset the leader stored: a message sent meanwhile is answered once, none before it again; the
// turn that was streaming on the dead leader is marked cut off in its chat. A leader whose lease runs
// out (the database holds its renewals up) drains like a hand-over: what it keeps is run next.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FakeBotApi } from "../fakes/telegram/fake-bot-api.js";
import { privateChat, user } from "../fakes/telegram/fake-chats.js";
import { sleep, waitFor } from "../platforms/telegram/helpers.js";
import { endProcessesIn, stopGracefully } from "../support/process.js";
import { postgresMissing, startTestPostgres, type TestPostgres } from "../support/postgres.js";

const BATON = join(process.cwd(), "bin/baton.js");
const POLL_MS = 50;
const alice = user(111, "Alice", "alice");
const TIMEOUT_MS = 30_000;
const TAKEOVER_TARGET_MS = 10_000;
const missing = postgresMissing();

let server: TestPostgres;
let fake: FakeBotApi;
let dir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (missing) return;
  server = await startTestPostgres();
  fake = await FakeBotApi.start({ username: "ha_bot" });
  dir = mkdtempSync(join(tmpdir(), "baton-ha-"));
}, 60_000);

// Each test's instances stop with it: they all poll the one Telegram fake, and one left leading its
// own database (a schedule still firing) took the next test's messages.
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => stopGracefully(child, 10_000)));
});

afterAll(async () => {
  await fake?.close();
  await server?.close();
  if (dir) {
    await endProcessesIn(dir);
    rmSync(dir, { recursive: true, force: true });
  }
});

interface Instance {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  dataDir: string;
}

function start(id: string, url: string, extra: string[] = [], timing = "lease_ms: 2000, renew_ms: 500"): Instance {
  const config = join(dir, `${id}.yaml`);
  writeFileSync(
    config,
    `${[
      ...extra,
      "agents: { default: demo }",
      "access: { allow: [telegram:111] }",
      "ops: { listen: 127.0.0.1:0 }",
      `instance: { id: ${id} }`,
      `store: { url: "${url}", ${timing} }`,
      `workspaces: { roots: ["${dir}"], default: "${dir}" }`,
      "platforms:",
      `  telegram: { token: "${fake.token}", api_root: "${fake.apiRoot}" }`,
    ].join("\n")}\n`,
  );
  const dataDir = join(dir, `data-${id}`);
  const child = spawn(process.execPath, [BATON, "start", "--config", config, "--data-dir", dataDir], { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
  return { child, out: () => out, err: () => err, dataDir };
}

const status = (i: Instance) => {
  const run = spawnSync(process.execPath, [BATON, "status", "--json", "--data-dir", i.dataDir], { encoding: "utf8" });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
};
function run(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.once("exit", (status) => resolve({ status, stdout, stderr }));
  });
}
/** How long the test gives eta's poller to take a message, before it lets the database go. */
const RECEIVE_MS = 1_500;
const answered = (pattern: RegExp) => fake.sentTo(111).filter((m) => pattern.test(m.text));
/** Either cut-off notice (a restart, or a move to another instance). */
const CUT_OFF_ANY = /this answer was cut off|the last turn was cut off/;
const threadIdOf = (text: string) => /th_[a-z0-9]+/i.exec(text)?.[0];

describe.skipIf(missing)("two instances on one PostgreSQL", { timeout: 120_000 }, () => {
  it("the standby takes over within 10 s of the leader's kill -9 and continues its thread", async () => {
    const url = await server.database();
    const a = start("alpha", url);
    await waitFor(() => (a.out().includes("Baton ready") ? true : undefined), "alpha leading", TIMEOUT_MS).catch((e) => {
      throw new Error(`${e.message}\n${a.out()}\n${a.err()}`);
    });
    expect(a.out()).toMatch(/leading, epoch 1/);
    const b = start("beta", url);
    await waitFor(() => (b.out().includes("standing by") ? true : undefined), "beta standing by", TIMEOUT_MS);

    fake.userSends({ chat: privateChat(alice), from: alice, text: "before the crash" });
    await waitFor(() => answered(/you said "before the crash"/)[0], "answered by alpha", TIMEOUT_MS);
    fake.userSends({ chat: privateChat(alice), from: alice, text: "/status" });
    const before = threadIdOf((await waitFor(() => answered(/th_/)[0], "status before", TIMEOUT_MS)).text);
    expect(before).toBeDefined();
    await waitFor(() => (status(b).cluster?.instances?.length === 2 ? true : undefined), "both instances seen", TIMEOUT_MS);
    expect(status(b)).toMatchObject({ state: "standby", role: "standby", leader: "alpha", epoch: 1 });
    expect(status(a)).toMatchObject({ state: "running", role: "leader", leader: "alpha", epoch: 1 });

    // A turn still streaming on the leader when it dies: the next leader says it was cut off.
    fake.userSends({ chat: privateChat(alice), from: alice, text: "demo:slow 30" });
    await waitFor(() => answered(/step 1/)[0], "a slow turn streaming on alpha", TIMEOUT_MS);
    // The running turn is written off the hot path: a crash before that write misses its mark by
    // design, so the kill waits for it (on a busy machine "step 1" can reach the chat first).
    await waitForRunningTurns(url);
    const killedAt = Date.now();
    a.child.kill("SIGKILL");
    // Sent while nobody leads: the next leader reads on from the offset the last one stored.
    fake.userSends({ chat: privateChat(alice), from: alice, text: "during the takeover" });
    await waitFor(() => (b.out().includes("Baton ready") ? true : undefined), "beta leading", TIMEOUT_MS);
    const takeoverMs = Date.now() - killedAt;
    expect(takeoverMs).toBeLessThan(TAKEOVER_TARGET_MS);
    expect(b.out()).toMatch(/leading, epoch 2/);
    expect(status(b)).toMatchObject({ state: "running", role: "leader", leader: "beta", epoch: 2 });
    await waitFor(() => answered(/Baton moved to another machine; the last turn was cut off/)[0], "the cut-off turn marked", TIMEOUT_MS);

    fake.userSends({ chat: privateChat(alice), from: alice, text: "after the crash" });
    await waitFor(() => answered(/you said "after the crash"/)[0], "answered by beta", TIMEOUT_MS);
    expect(answered(/you said "after the crash"/)).toHaveLength(1);
    expect(answered(/you said "before the crash"/)).toHaveLength(1);
    await waitFor(() => answered(/you said "during the takeover"/)[0], "the message sent meanwhile answered", TIMEOUT_MS);
    expect(answered(/you said "during the takeover"/)).toHaveLength(1);
    fake.userSends({ chat: privateChat(alice), from: alice, text: "/status" });
    const after = await waitFor(() => answered(/th_/)[1], "status after", TIMEOUT_MS);
    expect(threadIdOf(after.text)).toBe(before);
    console.log(`takeover after kill -9: ${takeoverMs} ms`);
  });

  it("a schedule that falls due while no instance leads runs once, on the next leader", async () => {
    const url = await server.database();
    const every10s = [`schedules: [{ route: "telegram:111", cron: "*/10 * * * * *", prompt: "tick" }]`];
    const a = start("gamma", url, every10s);
    await waitFor(() => (a.out().includes("Baton ready") ? true : undefined), "gamma leading", TIMEOUT_MS);
    const b = start("delta", url, every10s);
    await waitFor(() => (b.out().includes("standing by") ? true : undefined), "delta standing by", TIMEOUT_MS);
    const ticks = () => fake.sentTo(111).filter((m) => /⏰ Schedule `?config-1`?: tick/.test(m.text));
    // When each run's notice reached the chat (the fake keeps no times on messages).
    const seenAt = new Map<number, number>();
    const watch = setInterval(() => {
      for (const m of ticks()) if (!seenAt.has(m.messageId)) seenAt.set(m.messageId, Date.now());
    }, 50);
    const before = ticks().length;
    await waitFor(() => (ticks().length > before ? true : undefined), "a run on gamma", 15_000).catch((e) => {
      throw new Error(`${e.message}\n${a.err()}`);
    });
    const ranAt = Date.now();
    // Frozen, not killed: the lease runs out (2 s), the standby ends the frozen session after a
    // grace (2 s) and leads, so the run due 10 s after the last one falls in the gap or just after.
    await new Promise((resolve) => setTimeout(resolve, 6_000 - (Date.now() - ranAt)));
    a.child.kill("SIGSTOP");
    await waitFor(() => (b.out().includes("Baton ready") ? true : undefined), "delta leading", TIMEOUT_MS);
    a.child.kill("SIGKILL");
    const ledAt = Date.now();
    await waitFor(() => (Date.now() - ranAt > 25_000 ? true : undefined), "two more periods", 30_000);
    clearInterval(watch);
    const times = ticks()
      .slice(before)
      .map((m) => seenAt.get(m.messageId) ?? 0);
    const gaps = times.map((t, i) => (i === 0 ? 0 : t - times[i - 1]));
    // One run per 10 s period, on one instance or the other: none lost in the gap, none twice.
    expect(ticks().length - before, JSON.stringify(gaps)).toBe(3);
    expect(
      gaps.slice(1).every((g) => g > 5_000),
      JSON.stringify(gaps),
    ).toBe(true);
    expect(ledAt - ranAt).toBeLessThan(15_000);
  });

  it("baton step-down and SIGTERM hand the lead over without losing a message", async () => {
    const url = await server.database();
    const a = start("epsilon", url);
    await waitFor(() => (a.out().includes("Baton ready") ? true : undefined), "epsilon leading", TIMEOUT_MS);
    const b = start("zeta", url);
    await waitFor(() => (b.out().includes("standing by") ? true : undefined), "zeta standing by", TIMEOUT_MS);
    // The file's tests share the chat: count from here.
    const doneBefore = answered(/Done after \d+ steps/).length;
    const cutBefore = answered(CUT_OFF_ANY).length;
    // A turn running while the leader steps down: it finishes (drained), then the lead moves.
    fake.userSends({ chat: privateChat(alice), from: alice, text: "demo:slow 3" });
    await waitFor(() => answered(/step 1/)[0], "a turn streaming on epsilon", TIMEOUT_MS);
    // Not spawnSync: the fakes live in this process and must keep answering while Baton drains.
    const stepDown = await run([BATON, "step-down", "--data-dir", a.dataDir]);
    expect(stepDown.status, stepDown.stderr).toBe(0);
    expect(stepDown.stdout).toMatch(/Stepped down: instance epsilon stands by/);
    expect(
      answered(/Done after \d+ steps/),
      fake
        .sentTo(111)
        .map((m) => m.text)
        .join("\n---\n"),
    ).toHaveLength(doneBefore + 1);
    expect(answered(CUT_OFF_ANY)).toHaveLength(cutBefore);
    await waitFor(() => (b.out().includes("Baton ready") ? true : undefined), "zeta leading", TIMEOUT_MS);
    fake.userSends({ chat: privateChat(alice), from: alice, text: "after the step-down" });
    await waitFor(() => answered(/you said "after the step-down"/)[0], "answered by zeta", TIMEOUT_MS);
    expect(status(a)).toMatchObject({ state: "standby", role: "standby", leader: "zeta", epoch: 2 });

    // SIGTERM on the leader: it drains and hands over to the standby (epsilon again), which answers.
    b.child.kill("SIGTERM");
    await waitFor(() => (a.out().split("Baton ready").length === 3 ? true : undefined), "epsilon leading again", TIMEOUT_MS);
    expect(a.out()).toMatch(/leading, epoch 3/);
    fake.userSends({ chat: privateChat(alice), from: alice, text: "after the SIGTERM" });
    await waitFor(() => answered(/you said "after the SIGTERM"/)[0], "answered by epsilon", TIMEOUT_MS);
    expect(answered(/you said "after the SIGTERM"/)).toHaveLength(1);
    expect(answered(/you said "after the step-down"/)).toHaveLength(1);
    expect(answered(CUT_OFF_ANY)).toHaveLength(cutBefore);
  });

  it("a leader whose lease runs out drains like a hand-over: a message it keeps meanwhile is answered by the next leader (either instance)", async () => {
    const url = await server.database();
    // A long lease: the test acts between the lost lease and the moment a standby would end the session.
    const timing = "lease_ms: 5000, renew_ms: 500";
    const a = start("eta", url, [], timing);
    await waitFor(() => (a.out().includes("Baton ready") ? true : undefined), "eta leading", TIMEOUT_MS);
    const b = start("theta", url, [], timing);
    await waitFor(() => (b.out().includes("standing by") ? true : undefined), "theta standing by", TIMEOUT_MS);
    const keptBefore = answered(/Your message is kept/).length;
    fake.userSends({ chat: privateChat(alice), from: alice, text: "before the lease runs out" });
    await waitFor(() => answered(/you said "before the lease runs out"/)[0], "answered by eta", TIMEOUT_MS);
    // A slow turn streams when the lead is lost: ending it is a fenced write the blocked database
    // holds up, so eta's drain lasts until the rollback instead of a few milliseconds (an idle
    // drain would stop the poller before the next message could arrive, and nothing would be kept).
    const shown = fake.sentTo(111).length;
    fake.userSends({ chat: privateChat(alice), from: alice, text: "demo:stream 64k 1k 250" });
    await waitFor(() => (fake.sentTo(111).length > shown ? true : undefined), "the slow turn streaming", TIMEOUT_MS);
    // The database holds every renewal (and fenced write) up: the lease runs out, eta stops serving.
    const blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
    try {
      await blocker.query("BEGIN");
      await blocker.query("SELECT * FROM baton_leadership FOR UPDATE");
      await waitFor(() => (a.err().includes("lost the lead") ? true : undefined), "eta losing the lead", TIMEOUT_MS);
      fake.userSends({ chat: privateChat(alice), from: alice, text: "while eta drains" });
      // Eta keeps it if its poller is still up, and says so once the database has let the write
      // through (not before: it could not keep it otherwise); on a loaded machine the drain may have
      // stopped the poller first, and then the message waits at Telegram for the next leader.
      // Either way it is answered exactly once below; which path it took is only logged.
      await sleep(RECEIVE_MS);
      await blocker.query("ROLLBACK");
    } finally {
      await blocker.end();
    }
    await waitFor(() => answered(/you said "while eta drains"/)[0], "the kept message answered by the next leader", TIMEOUT_MS);
    expect(answered(/you said "while eta drains"/)).toHaveLength(1);
    const kept = answered(/Your message is kept/).length > keptBefore;
    console.log(`lease ran out during a drain: the message was ${kept ? "kept by eta" : "left at Telegram for the next leader"}`);
    expect(answered(/could not save your message/)).toEqual([]);
    expect(b.err()).not.toContain("could not keep a queued prompt");
    expect(a.err()).not.toContain("could not keep a queued prompt");
  });
});

/** Until the leader has stored a running turn (the key the next leader reads its cut-off turns from). */
async function waitForRunningTurns(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const deadline = Date.now() + TIMEOUT_MS;
    for (;;) {
      const { rows } = await client.query<{ value: string }>("SELECT value FROM baton_cursors WHERE key = 'core:running-turns'");
      const threads: unknown = rows[0] ? JSON.parse(rows[0].value).threads : undefined;
      if (Array.isArray(threads) && threads.length > 0) return;
      if (Date.now() > deadline) throw new Error("timed out waiting for the leader to store its running turn");
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } finally {
    await client.end();
  }
}

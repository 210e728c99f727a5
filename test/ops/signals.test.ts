// The real `baton start` process, with Telegram on its wire fake: SIGHUP adds a user while another
// user's turn keeps streaming; SIGTERM lets the running turn finish within shutdown_grace, and a
// prompt queued behind it runs after the next start; after a kill -9 mid-turn the next start marks
// the cut-off answer in its chat. `baton status` and `baton reload` ask it.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeBotApi } from "../fakes/telegram/fake-bot-api.js";
import { privateChat, user } from "../fakes/telegram/fake-chats.js";
import { waitFor } from "../platforms/telegram/helpers.js";
import { stopGracefully } from "../support/process.js";

const BATON = join(process.cwd(), "bin/baton.js");
const alice = user(111, "Alice", "alice");
const bob = user(222, "Bob", "bob");
const TIMEOUT_MS = 30_000;
/** How long a stopping daemon may take before it is killed. */
const STOP_MS = 10_000;

interface Running {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exited: Promise<number | null>;
}

let dir: string;
let fake: FakeBotApi;
const children: ChildProcess[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "baton-signals-"));
  fake = await FakeBotApi.start({ username: "signals_bot" });
});

afterEach(async () => {
  // Stopped as a service manager would, so the agent processes it started (the spare too) are gone
  // before the folder is removed; SIGKILL only if it does not stop.
  for (const child of children.splice(0)) await stopGracefully(child, STOP_MS);
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

function writeConfig(allow: string[]): string {
  const path = join(dir, "baton.yaml");
  writeFileSync(
    path,
    `${[
      "agents: { default: demo }",
      `access: { allow: [${allow.join(", ")}] }`,
      "shutdown_grace: 20s",
      // With a token: `baton status` and `baton reload` must send it.
      "ops: { listen: 127.0.0.1:0, token: signals-ops-token-0123456789 }",
      `workspaces: { roots: ["${dir}"], default: "${dir}" }`,
      "platforms:",
      `  telegram: { token: "${fake.token}", api_root: "${fake.apiRoot}" }`,
    ].join("\n")}\n`,
  );
  return path;
}

/** The threads the data dir records as running a turn (what the next start marks cut off). */
function runningTurns(): string[] {
  try {
    return JSON.parse(readFileSync(join(dir, "data", "running-turns.json"), "utf8")) as string[];
  } catch {
    return [];
  }
}

const baton = (...args: string[]) => [BATON, ...args, "--config", join(dir, "baton.yaml"), "--data-dir", join(dir, "data")];

async function startBaton(): Promise<Running> {
  const child = spawn(process.execPath, baton("start"), { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  await waitFor(
    () =>
      out.includes("Baton ready")
        ? true
        : child.exitCode !== null
          ? (() => {
              throw new Error(`exited:\n${out}\n${err}`);
            })()
          : undefined,
    "the ready line",
    TIMEOUT_MS,
  );
  return { child, out: () => out, err: () => err, exited };
}

const sentTo = (chat: number, pattern: RegExp) => fake.sentTo(chat).find((m) => pattern.test(m.text));

describe("signals to a running baton", { timeout: 120_000 }, () => {
  it("SIGHUP adds a user to access.allow while another user's turn keeps streaming", async () => {
    writeConfig(["telegram:111"]);
    const running = await startBaton();
    fake.userSends({ chat: privateChat(alice), from: alice, text: "demo:slow 6" });
    const streaming = await waitFor(() => sentTo(111, /step 2/), "alice's turn streaming", TIMEOUT_MS);
    fake.userSends({ chat: privateChat(bob), from: bob, text: "let me in" });
    await waitFor(() => sentTo(222, /not allowed.*telegram:222/), "bob refused", TIMEOUT_MS);

    writeConfig(["telegram:111", "telegram:222"]);
    running.child.kill("SIGHUP");
    await waitFor(() => (/config reloaded: applied access/.test(running.err()) ? true : undefined), "the reload log line", TIMEOUT_MS);
    const editsAtReload = streaming.history.length;
    fake.userSends({ chat: privateChat(bob), from: bob, text: "hello after the reload" });
    await waitFor(() => sentTo(222, /you said "hello after the reload"/), "bob answered", TIMEOUT_MS);
    const done = await waitFor(() => sentTo(111, /Done after \d+ steps/), "alice's turn finished", TIMEOUT_MS);
    expect(done.history.length).toBeGreaterThan(editsAtReload);
    expect(fake.sentTo(111).some((m) => /cancel|Stopped|restarting/i.test(m.text))).toBe(false);

    // Not a terminal: the log is JSON lines, their times with the zone.
    const logLine = running
      .err()
      .split("\n")
      .find((l) => l.includes("config reloaded"))!;
    expect(JSON.parse(logLine)).toMatchObject({ level: 30, applied: ["access"], restartNeeded: [] });
    expect(logLine).toMatch(/"time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d"/);

    const status = spawnSync(process.execPath, baton("status", "--json"), { encoding: "utf8" });
    expect(status.status, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ state: "running", platforms: [{ name: "telegram", connected: true }], lastReload: { ok: true, applied: ["access"] } });
    const reload = spawnSync(process.execPath, baton("reload"), { encoding: "utf8" });
    expect(reload.stdout.trim()).toBe("config reloaded: nothing to apply live");
    const human = spawnSync(process.execPath, baton("status"), { encoding: "utf8" });
    expect(human.stdout).toMatch(/: running, up \d+ s/);
    expect(human.stdout).toMatch(/✓ telegram \(telegram\)/);

    running.child.kill("SIGTERM");
    expect(await running.exited).toBe(0);
    const gone = spawnSync(process.execPath, baton("status"), { encoding: "utf8" });
    expect(gone.status).toBe(3);
  });

  it("SIGTERM during a turn: it finishes within the grace period; the prompt queued behind it runs after the restart", async () => {
    writeConfig(["telegram:111"]);
    const first = await startBaton();
    fake.userSends({ chat: privateChat(alice), from: alice, text: "demo:slow 3" });
    await waitFor(() => sentTo(111, /step 1/), "the turn streaming", TIMEOUT_MS);
    fake.userSends({ chat: privateChat(alice), from: alice, text: "after the restart" });
    await waitFor(() => sentTo(111, /Queued behind 1 turn/), "queued", TIMEOUT_MS);
    const signalledAt = Date.now();
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(20_000);
    expect(sentTo(111, /Done after \d+ steps/)).toBeDefined();
    expect(sentTo(111, /you said "after the restart"/)).toBeUndefined();
    expect(first.err()).toMatch(/shutting down: no new turns/);

    await startBaton();
    await waitFor(() => sentTo(111, /Baton is back: running the message queued/), "the resume notice", TIMEOUT_MS);
    await waitFor(() => sentTo(111, /you said "after the restart"/), "the queued prompt answered", TIMEOUT_MS);
  });

  it("kill -9 during a turn: after the restart its chat is told the answer was cut off, once", async () => {
    writeConfig(["telegram:111"]);
    const first = await startBaton();
    fake.userSends({ chat: privateChat(alice), from: alice, text: "demo:slow 30" });
    await waitFor(() => sentTo(111, /step 2/), "the turn streaming", TIMEOUT_MS);
    // The running turn is recorded off the hot path (by design a crash in the moment before that
    // write misses its mark): the kill comes once it is, not when the chat shows the turn.
    await waitFor(() => (runningTurns().length > 0 ? true : undefined), "the running turn recorded", TIMEOUT_MS);
    first.child.kill("SIGKILL");
    await first.exited;
    expect(sentTo(111, /cut off/)).toBeUndefined();

    const second = await startBaton();
    const notice = await waitFor(() => sentTo(111, /⚠️ Baton restarted; this answer was cut off\./), "the cut-off notice", TIMEOUT_MS);
    expect(notice).toBeDefined();
    expect(second.err()).toMatch(/a turn was cut off when Baton last stopped without a clean shutdown/);
    // The audit trail says so too (the turn's end was never recorded).
    const cutOff = () =>
      spawnSync(process.execPath, baton("audit", "--json"), { encoding: "utf8" })
        .stdout.split("\n")
        .filter((l) => l.includes('"outcome":"cut_off"'));
    await waitFor(() => (cutOff().length > 0 ? true : undefined), "the cut-off turn in the audit trail", TIMEOUT_MS);
    expect(cutOff()).toHaveLength(1);
    // A clean stop and start after that marks nothing again.
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
    await startBaton();
    fake.userSends({ chat: privateChat(alice), from: alice, text: "still there?" });
    await waitFor(() => sentTo(111, /you said "still there\?"/), "an answer after the clean restart", TIMEOUT_MS);
    expect(fake.sentTo(111).filter((m) => /cut off/.test(m.text))).toHaveLength(1);
  });
});

// Two `baton start` processes (the shipped CLI) on one PostgreSQL, serving Telegram and Slack (their
// wire fakes): 200 messages from 10 chats over a minute while the leader is killed with kill -9
// three times (a new standby started after each kill, so the instances alternate). Every message is
// answered exactly once and in order within its chat — or, when a kill cut its turn off, the chat is
// told so (the next leader cannot finish a turn the dead one started); each takeover under 10 s.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { FakeBotApi } from "../fakes/telegram/fake-bot-api.js";
import { privateChat, user } from "../fakes/telegram/fake-chats.js";
import { FakeSlack } from "../fakes/slack/index.js";
import { visibleText } from "../fakes/slack/wire.js";
import { endProcessesIn, stopGracefully } from "../support/process.js";
import { postgresForFile } from "../support/postgres-file.js";

const BATON = join(process.cwd(), "bin/baton.js");
const MESSAGES = 200;
const SPREAD_MS = 60_000;
const KILLS_AT_MS = [15_000, 30_000, 45_000];
const TAKEOVER_TARGET_MS = 10_000;
const DRAIN_MS = 40_000;
const TELEGRAM_USERS = [201, 202, 203, 204, 205];
const SLACK_USERS = ["U0P1", "U0P2", "U0P3", "U0P4", "U0P5"];
const CUT_OFF = /Baton moved to another machine; the last turn was cut off/;

const { missing, server } = postgresForFile();
let telegram: FakeBotApi;
let slack: FakeSlack;
let dir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (missing) return;
  telegram = await FakeBotApi.start({ username: "stress_bot" });
  slack = await new FakeSlack().start();
  dir = mkdtempSync(join(tmpdir(), "baton-stress-"));
});

afterAll(async () => {
  for (const child of children) await stopGracefully(child, 10_000);
  await telegram?.close();
  await slack?.stop();
  if (dir) {
    await endProcessesIn(dir);
    rmSync(dir, { recursive: true, force: true });
  }
});

interface Instance {
  child: ChildProcess;
  out: () => string;
}

function start(index: number, url: string): Instance {
  const config = join(dir, `i${index}.yaml`);
  writeFileSync(
    config,
    stringify({
      agents: { default: "demo" },
      access: { allow: [...TELEGRAM_USERS.map((u) => `telegram:${u}`), ...SLACK_USERS.map((u) => `slack:${u}`)] },
      ops: { listen: "127.0.0.1:0" },
      instance: { id: `i${index}` },
      store: { url, lease_ms: 2_000, renew_ms: 500 },
      workspaces: { roots: [dir], default: dir },
      rendering: { show_usage: false },
      platforms: {
        telegram: { token: telegram.token, api_root: telegram.apiRoot },
        slack: { bot_token: slack.options.botToken, app_token: slack.options.appToken, api_url: slack.apiUrl },
      },
    }),
  );
  const child = spawn(process.execPath, [BATON, "start", "--config", config, "--data-dir", join(dir, `data-${index}`)], { stdio: ["ignore", "pipe", "ignore"] });
  children.push(child);
  let out = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
  return { child, out: () => out };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(check: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** What each chat shows, in order: the texts of the bot's messages (their latest edit). */
function chatTexts(chat: number): string[] {
  return chat < TELEGRAM_USERS.length
    ? telegram.sentTo(TELEGRAM_USERS[chat]).map((m) => m.text)
    : slack.botMessages(`D0${SLACK_USERS[chat - TELEGRAM_USERS.length].slice(2)}`).map((m) => visibleText(m));
}

function send(chat: number, text: string): void {
  if (chat < TELEGRAM_USERS.length) {
    const person = user(TELEGRAM_USERS[chat], `p${chat}`);
    telegram.userSends({ chat: privateChat(person), from: person, text });
  } else {
    const id = SLACK_USERS[chat - TELEGRAM_USERS.length];
    slack.event({ type: "message", channel: `D0${id.slice(2)}`, channel_type: "im", user: id, text, ts: slack.nextTs() });
  }
}

describe.skipIf(missing)("takeovers under load", { timeout: 180_000 }, () => {
  it("200 messages from 10 chats over a minute, the leader killed three times: each answered once, in order", async () => {
    const url = await server().database();
    let next = 0;
    let leader = start(next++, url);
    await until(() => leader.out().includes("Baton ready"), "the first leader", 30_000);
    let standby = start(next++, url);
    await until(() => standby.out().includes("standing by"), "the first standby", 30_000);
    const takeoverMs: number[] = [];
    const began = Date.now();
    const kills = KILLS_AT_MS.map(async (at) => {
      await sleep(at - (Date.now() - began));
      const killedAt = Date.now();
      leader.child.kill("SIGKILL");
      const heir = standby;
      await until(() => heir.out().includes("Baton ready"), "the standby leading", TAKEOVER_TARGET_MS * 2);
      takeoverMs.push(Date.now() - killedAt);
      leader = heir;
      standby = start(next++, url);
      await until(() => standby.out().includes("standing by"), "a new standby", 30_000);
    });
    // Kills run one after another (each waits for its time); chained so they never overlap.
    const killing = kills.reduce((chain, k) => chain.then(() => k), Promise.resolve());
    for (let i = 0; i < MESSAGES; i++) {
      await sleep((i * SPREAD_MS) / MESSAGES - (Date.now() - began));
      send(i % 10, `m${i % 10}-${Math.floor(i / 10)}`);
    }
    await killing;
    const perChat = MESSAGES / 10;
    const settled = () =>
      Array.from({ length: 10 }, (_, chat) => chatTexts(chat)).every((texts, chat) => {
        const answered = new Set(texts.flatMap((t) => [...t.matchAll(/you said "(m\d+-\d+)"/g)].map((m) => m[1])));
        const cut = texts.filter((t) => CUT_OFF.test(t)).length;
        return answered.size + cut >= perChat && answered.has(`m${chat}-${perChat - 1}`);
      });
    await until(settled, "every message answered", DRAIN_MS).catch(() => undefined);

    let cutOff = 0;
    for (let chat = 0; chat < 10; chat++) {
      const texts = chatTexts(chat);
      const answers = texts.flatMap((t) => [...t.matchAll(/you said "(m\d+)-(\d+)"/g)].map((m) => Number(m[2])));
      const cut = texts.filter((t) => CUT_OFF.test(t)).length;
      cutOff += cut;
      // Exactly once each, in the order they were sent; one missing per cut-off notice at most.
      expect(new Set(answers).size, `chat ${chat}: ${JSON.stringify(answers)}`).toBe(answers.length);
      expect(answers, `chat ${chat}\n${texts.join("\n---\n")}`).toEqual([...answers].sort((a, b) => a - b));
      expect(answers.length + cut, `chat ${chat}: ${JSON.stringify(answers)}, ${cut} cut off\n${texts.join("\n---\n")}`).toBeGreaterThanOrEqual(perChat);
    }
    expect(takeoverMs).toHaveLength(3);
    expect(Math.max(...takeoverMs)).toBeLessThan(TAKEOVER_TARGET_MS);
    console.log(`takeovers (kill -9 → the standby's ready line): ${takeoverMs.join(", ")} ms; turns cut off by a kill: ${cutOff}`);
  });
});

// Soak: 50 web chat conversations stream through the demo agent while some agents crash, some hang
// while starting, and the daemon is killed (SIGKILL) mid-stream and restarted. Loopback only,
// bounded in time. Asserts: no thread hung (every conversation answers after the restart), no
// approval answered the wrong request (a button of a request whose turn died answers nothing, the
// live request still gets its answer), every event the daemon acknowledged is in the log it
// replays, and the daemon's RSS stayed bounded.
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { JsonlEventStore } from "../../src/threads/store.js";
import { ThreadRegistry } from "../../src/threads/registry.js";
import { exitOf } from "../support/process.js";
import { testTempDir } from "../support/temp.js";
import { SoakWebClient } from "./web-client.js";

const BATON = join(process.cwd(), "bin", "baton.js");
const CONVERSATIONS = Number(process.env.BATON_SOAK_CONVERSATIONS ?? 50);
/** Prompts each conversation sends before the kill; the kill lands while round 3 streams. */
const ROUNDS = 3;
const KILL_AFTER_REPLIES = Math.round(CONVERSATIONS * 2.5);
/** RSS of the daemon process must stay under this (idle is about 100 MB). */
const RSS_LIMIT_MB = 400;
const REPLY_MS = 120_000;

const conv = (i: number) => `soak-conversation-${String(i).padStart(2, "0")}`;
const crashes = (i: number) => i % 10 === 0;
const hangs = (i: number) => i % 10 === 5;
/** These leave an approval unanswered when the daemon is killed, and press it after the restart. */
const asks = (i: number) => i % 10 === 3;

interface Daemon {
  child: ChildProcess;
  url: string;
  rssPeakKb: number;
  stopSampling(): void;
}

const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

function rssKb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

async function startDaemon(config: string, dataDir: string): Promise<Daemon> {
  const child = spawn(process.execPath, [BATON, "start", "--config", config, "--data-dir", dataDir], { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let out = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr!.setEncoding("utf8").on("data", () => undefined);
  const deadline = Date.now() + 60_000;
  while (!/Baton ready/.test(out)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`soak: the daemon did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const url = /Web chat: (\S+)/.exec(out)![1];
  const daemon: Daemon = { child, url, rssPeakKb: 0, stopSampling: () => clearInterval(timer) };
  const timer = setInterval(() => (daemon.rssPeakKb = Math.max(daemon.rssPeakKb, rssKb(child.pid!))), 200);
  return daemon;
}

/** Demo agents still running for this data dir (they carry it in their environment). */
function agentsOf(dataDir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, "utf8").includes(`BATON_DATA_DIR=${dataDir}\0`)) pids.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

describe("soak", () => {
  it("50 conversations through crashes, start hangs and a kill -9 of the daemon", async () => {
    const started = Date.now();
    const dir = testTempDir("baton-soak-");
    const dataDir = join(dir, "data");
    const config = join(dir, "baton.yaml");
    writeFileSync(
      config,
      [
        "log:",
        "  level: warn",
        "agents:",
        "  default: demo",
        "  max_live_hosts: 16",
        // A healthy demo agent opens a session at once; booting it may take long on a loaded machine.
        "  start_timeout:",
        "    initialize: 60s",
        "    session: 5s",
        "  profiles:",
        "    hang:",
        "      agent: demo",
        "      env: { BATON_DEMO_HANG: session }",
        "platforms:",
        "  web:",
        // Port 0: the daemon binds a free port itself and says which ("Web chat: <url>"), each start its own.
        "    listen: 127.0.0.1:0",
        "rendering:",
        "  flush_debounce_ms: 100",
        "  min_edit_gap_ms: 200",
        "",
      ].join("\n"),
    );

    // Phase 1: every conversation talks; some agents crash, some hang at start; the kill comes mid-stream.
    let daemon = await startDaemon(config, dataDir);
    let client = await SoakWebClient.connect(daemon.url, "soakbrowser1");
    let replies = 0;
    let killed = false;
    const killedAt = new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (replies >= KILL_AFTER_REPLIES) {
          clearInterval(check);
          resolve();
        }
      }, 20);
    });
    const seenThreads = new Map<string, Set<string>>(); // thread → sessions the chat was shown
    const remember = () => {
      for (const shown of client.conversations.values()) {
        const info = shown.info;
        if (!info?.thread) continue;
        const sessions = seenThreads.get(info.thread) ?? new Set<string>();
        if (info.session) sessions.add(info.session);
        seenThreads.set(info.thread, sessions);
      }
    };
    const sampler = setInterval(() => !killed && remember(), 50);

    const staleApprovals = new Map<string, { messageId: string; actions: string[] }>();
    const script = async (i: number) => {
      const c = conv(i);
      for (let round = 1; round <= ROUNDS && !killed; round++) {
        if (round === 2 && asks(i)) {
          // Left unanswered: the kill ends its turn with the request still pending.
          client.send(c, "demo:permission");
          staleApprovals.set(c, await client.waitForButtons(c, new Set(), REPLY_MS));
          replies++;
          return;
        }
        if (round === 2 && crashes(i)) {
          client.send(c, "demo:crash");
          await client.waitFor(c, /Agent exited unexpectedly \(code 3\)/, REPLY_MS);
        } else if (round === 2 && hangs(i)) {
          client.send(c, "/new demo+hang");
          client.send(c, `hello from ${c}`);
          await client.waitFor(c, /did not answer session\/new within 5 s/, REPLY_MS);
          client.send(c, "/new demo");
          await client.waitFor(c, /New thread .* with Baton demo agent in/, REPLY_MS);
        } else if (round % 2 === 1) {
          client.send(c, `say ${c} round ${round}`);
          await client.waitFor(c, new RegExp(`you said "say ${c} round ${round}"`), REPLY_MS);
        } else {
          client.send(c, "demo:long");
          await client.waitFor(c, /The end\./, REPLY_MS);
        }
        replies++;
      }
    };
    const phase1 = Promise.allSettled(Array.from({ length: CONVERSATIONS }, (_, i) => script(i)));
    await Promise.race([killedAt, phase1]);
    remember();
    killed = true;
    clearInterval(sampler);
    const repliesBeforeKill = replies;
    daemon.child.kill("SIGKILL");
    await exitOf(daemon.child);
    daemon.stopSampling();
    const rssPeaks = [daemon.rssPeakKb];
    client.close();
    await phase1;

    // Phase 2: a fresh daemon on the same data dir; every conversation must answer again.
    const restartStarted = Date.now();
    daemon = await startDaemon(config, dataDir);
    const restartMs = Date.now() - restartStarted;
    client = await SoakWebClient.connect(daemon.url, "soakbrowser1");
    // Every route still points at the thread the chat last saw (or one made after it).
    for (const c of client.welcome!.conversations) {
      if (c.info?.thread) expect(c.info.open, c.id).toBe(true);
    }
    const answered = await Promise.allSettled(
      Array.from({ length: CONVERSATIONS }, async (_, i) => {
        const c = conv(i);
        // The kill may have come between a hang and the /new that follows it: leave that thread first.
        if (client.conversations.get(c)?.info?.profile === "hang") {
          client.send(c, "/new demo");
          await client.waitFor(c, /New thread .* with Baton demo agent in/, REPLY_MS);
        }
        client.send(c, `after restart ${c}`);
        await client.waitFor(c, new RegExp(`you said "after restart ${c}"`), REPLY_MS);
      }),
    );
    // Approvals: a button of a request whose turn died with the daemon answers nothing; the live
    // request of the new turn is still pending afterwards and gets the user's answer.
    const approvals = await Promise.allSettled(
      [...staleApprovals].map(async ([c, stale]) => {
        const beforeKill = await client.press(c, stale.messageId, stale.actions[0], REPLY_MS);
        expect(beforeKill.ok, `${c}: a dead turn's approval was accepted`).toBe(false);
        client.send(c, "demo:permission");
        const live = await client.waitForButtons(c, new Set([stale.messageId]), REPLY_MS);
        const again = await client.press(c, stale.messageId, stale.actions[0], REPLY_MS);
        expect(again.ok, `${c}: the stale button answered the live request`).toBe(false);
        expect(
          [...client.conversations.get(c)!.messages.values()].some((t) => /Permission answer/.test(t)),
          c,
        ).toBe(false);
        expect((await client.press(c, live.messageId, live.actions[0], REPLY_MS)).ok, c).toBe(true);
        await client.waitFor(c, /Permission answer: (?!cancelled)/, REPLY_MS);
      }),
    );
    const wrongApprovals = approvals.map((r) => (r.status === "rejected" ? String(r.reason) : undefined)).filter(Boolean);
    expect(wrongApprovals, "approvals answered wrongly").toEqual([]);

    const hung = answered.map((r, i) => (r.status === "rejected" ? conv(i) : undefined)).filter((c): c is string => !!c);
    const shownOf = (c: string) => [...(client.conversations.get(c)?.messages.values() ?? [])].slice(-3).map((t) => t.slice(0, 200));
    expect(hung, `conversations that never answered after the restart; the first shows: ${JSON.stringify(hung[0] ? shownOf(hung[0]) : [])}`).toEqual([]);

    // A clean stop, then the log replayed as the next start would: nothing acknowledged is missing.
    daemon.child.kill("SIGTERM");
    expect(await exitOf(daemon.child)).toBe(0);
    daemon.stopSampling();
    rssPeaks.push(daemon.rssPeakKb);
    client.close();
    const { registry, report } = await ThreadRegistry.open(new JsonlEventStore(join(dataDir, "threads", "events.jsonl")), { compactMinDropped: Infinity });
    const missing: string[] = [];
    for (const [thread, sessions] of seenThreads) {
      const record = registry.get(thread);
      if (!record) missing.push(thread);
      else for (const s of sessions) if (!record.sessions.includes(s)) missing.push(`${thread} session ${s}`);
    }
    expect(missing, "acknowledged threads or sessions missing from the replayed log").toEqual([]);
    expect(report.skipped.filter((s) => !/torn last line/.test(s.reason))).toEqual([]);

    // No agent process outlives the daemons that started them.
    await client.until(() => agentsOf(dataDir).length === 0, 15_000, "the demo agents to exit").catch(() => undefined);
    const leftover = agentsOf(dataDir);
    for (const pid of leftover) process.kill(pid, "SIGKILL");
    expect(leftover, "agent processes left running").toEqual([]);

    const peakMb = Math.max(...rssPeaks) / 1024;
    const figures = {
      conversations: CONVERSATIONS,
      repliesBeforeKill,
      threadsSeen: seenThreads.size,
      staleApprovalsRefused: staleApprovals.size,
      eventsReplayed: report.events,
      skippedLines: report.skipped.length,
      restartMs,
      rssPeakMbBeforeKill: Math.round(rssPeaks[0] / 1024),
      rssPeakMbAfterRestart: Math.round(rssPeaks[1] / 1024),
      totalSeconds: Math.round((Date.now() - started) / 1000),
    };
    console.log(`soak figures: ${JSON.stringify(figures)}`);
    expect(peakMb).toBeLessThan(RSS_LIMIT_MB);
  });
});

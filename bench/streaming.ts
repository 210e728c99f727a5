// 100 threads streaming at once through one platform: the real daemon with the Telegram adapter
// (default pacing) against the fake Bot API, 100 private chats each asking the demo agent for a
// 20 KB answer. Checks that no chunk is lost, that Telegram's limits are kept, and measures the
// daemon's event-loop lag while it all streams.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { stringify } from "yaml";
import { parseConfigText } from "../src/config/load.js";
import { startDaemon } from "../src/bot/daemon.js";
import { createLogger, silentLogger } from "../src/kernel/log.js";
import { FakeBotApi } from "../test/fakes/telegram/fake-bot-api.js";
import { privateChat, user } from "../test/fakes/telegram/fake-chats.js";
import type { BenchResult } from "./types.js";

const CHATS = 100;
const DEADLINE_MS = 180_000;
const FIRST_USER_ID = 5_000;

export async function benchStreaming(): Promise<BenchResult[]> {
  const fake = await FakeBotApi.start({ username: "baton_stream_bot" });
  const dataDir = mkdtempSync(join(tmpdir(), "baton-bench-stream-"));
  const users = Array.from({ length: CHATS }, (_, i) => user(FIRST_USER_ID + i, `user${i}`));
  const config = {
    agents: { default: "demo", max_live_hosts: CHATS },
    access: { allow: users.map((u) => `telegram:${u.id}`) },
    workspaces: { roots: [tmpdir(), process.cwd()], default: process.cwd() },
    platforms: { telegram: { token: fake.token, api_root: fake.apiRoot } },
  };
  const loaded = parseConfigText(stringify(config), "bench.yaml", {});
  const daemon = await startDaemon({ loaded, dataDir, log: process.env.BATON_BENCH_DEBUG ? createLogger({ level: "warn" }) : silentLogger(), env: { ...process.env, BATON_DATA_DIR: dataDir } });
  const lag = monitorEventLoopDelay({ resolution: 10 });
  const spawnLag = monitorEventLoopDelay({ resolution: 10 });
  let started = performance.now();
  let complete = 0;
  try {
    // Phase 1: start the 100 agent processes (a first short turn each). Spawning a process blocks
    // the event loop for a few ms each, so this phase's lag is reported on its own.
    spawnLag.enable();
    for (const u of users) fake.userSends({ chat: privateChat(u), from: u, text: "hello" });
    while (users.some((u) => !fake.sentTo(u.id).some((m) => m.text.includes('you said "hello"'))) && performance.now() - started < DEADLINE_MS) {
      await new Promise((r) => setTimeout(r, 200));
    }
    spawnLag.disable();
    await new Promise((r) => setTimeout(r, 2_000));
    // Phase 2: all 100 stream a 20 KB answer at once.
    started = performance.now();
    lag.enable();
    for (const u of users) fake.userSends({ chat: privateChat(u), from: u, text: "demo:long" });
    const done = (u: (typeof users)[number]) => fake.sentTo(u.id).some((m) => m.text.includes("The end."));
    while ((complete = users.filter(done).length) < CHATS && performance.now() - started < DEADLINE_MS) {
      await new Promise((r) => setTimeout(r, 200));
    }
    lag.disable();
  } finally {
    await daemon.stop();
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const elapsed = performance.now() - started;
  // No chunk lost: every chat shows every section, in order, ending with the last line.
  let lost = 0;
  for (const u of users) {
    const text = fake.sentTo(u.id).map((m) => m.text).join("\n");
    const sections = [...text.matchAll(/Section (\d+)\n/g)].map((m) => Number(m[1]));
    if (sections.length === 0 || sections.some((n, i) => n !== i + 1) || !text.includes("The end.")) {
      lost++;
      if (process.env.BATON_BENCH_DEBUG && lost === 1) {
        console.error(`chat ${u.id}: sections ${sections.join(",")}`);
        for (const c of fake.calls.filter((c) => Number(c.params.chat_id) === u.id)) console.error(`call ${c.method} ${c.params.message_id ?? ""} len=${String(c.params.text ?? "").length} at=${c.at}`);
        for (const m of fake.sentTo(u.id)) console.error(`--- message ${m.messageId} (${m.history.length} versions, ${m.text.length} chars)\n${m.text.slice(0, 200)}\n…\n${m.text.slice(-200)}`);
      }
    }
  }
  const violations = fake.budgetViolations(fake.calls);
  const p99 = lag.percentile(99) / 1e6;
  return [
    { name: `${CHATS} threads streaming 20 KB each through Telegram: chats complete`, value: complete, unit: `of ${CHATS}`, ok: complete === CHATS },
    { name: `${CHATS} threads streaming: chats with a lost or reordered chunk`, value: lost, unit: "", target: "0", ok: lost === 0 },
    { name: `${CHATS} threads streaming: Telegram pacing violations`, value: violations.length, unit: "", target: "0", ok: violations.length === 0 },
    { name: `${CHATS} threads streaming: event-loop lag p99`, value: p99, unit: "ms", target: "< 50 ms", ok: p99 < 50 },
    { name: `${CHATS} agent processes starting at once (first turn): event-loop lag p99`, value: spawnLag.percentile(99) / 1e6, unit: "ms" },
    { name: `${CHATS} threads streaming: wall time until every chat had its full answer`, value: elapsed / 1000, unit: "s" },
  ];
}

// Cold start and memory at rest, each from fresh `baton start` processes with web + Telegram +
// Slack on their fakes: time to serving (every platform connected: the web chat listening, the
// first getUpdates and the Slack Socket Mode connection seen by the fakes), the first message's
// round trip after it, idle RSS once settled, and what an open thread and a live host cost. Then
// Discord and Matrix, each alone on its fake, listed separately (no target).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { allSettled, BatonProcess, sleep, until } from "./lib/baton.js";
import { batonConfig, startFakes, telegramUser, TextCalls, type Fakes } from "./lib/fakes.js";
import { figure, type Figure } from "./lib/figure.js";
import { seedOpenThreads } from "./lib/seed.js";

export interface StartupScale {
  runs: number;
  /** Fresh processes for each of the platforms measured on their own (Discord, Matrix). */
  platformRuns: number;
  /** Threads seeded to weigh one open thread. */
  threadsForRss: number;
  /** Live hosts started to weigh one. */
  hostsForRss: number;
  /** RSS is sampled this often; settled once SETTLE_SAMPLES in a row are within SETTLE_TOLERANCE. */
  settleIntervalMs: number;
  /** The same for samples each taken right after a memory-reducing GC, which settle at once. */
  reducedSettleIntervalMs: number;
}

export const STARTUP_FULL: StartupScale = { runs: 7, platformRuns: 3, threadsForRss: 10_000, hostsForRss: 20, settleIntervalMs: 5_000, reducedSettleIntervalMs: 2_000 };
export const STARTUP_TINY: StartupScale = { runs: 2, platformRuns: 2, threadsForRss: 50, hostsForRss: 2, settleIntervalMs: 300, reducedSettleIntervalMs: 300 };

/** The first message is sent this long after serving: the idle moment a real first message finds. */
const FIRST_MESSAGE_AFTER_MS = 1_000;
const SETTLE_TOLERANCE = 0.02;
/**
 * Samples in a row (30 s at full scale) that must agree: V8 gives memory back only once its memory
 * reducer runs, some 10-20 s after the last burst, so two samples 5 s apart could agree on a
 * plateau that was not where the process settled (seen 91 MB, then 80 MB for good).
 */
const SETTLE_SAMPLES = 7;
const SETTLE_MAX_MS = 120_000;
/**
 * Platforms measured on their own, each alone in the config (not part of the web + Telegram +
 * Slack figure): serving is the platform's "connected" line, which Baton prints once the adapter's
 * start has resolved (Discord: after the gateway's READY and the guilds; Matrix: after login or
 * the stored session, the crypto machine and the first sync).
 */
const SEPARATE_KINDS = [
  { kind: "discord", name: "Discord", connected: /^discord: connected as / },
  { kind: "matrix", name: "Matrix", connected: /^matrix: connected to / },
] as const;

export async function benchStartup(scale: StartupScale): Promise<Array<Figure | string>> {
  const fakes = await startFakes({ telegram: true, slack: true });
  const textCalls = new TextCalls(fakes.telegram!);
  const config = batonConfig(fakes, { web: true });
  try {
    const serving: number[] = [];
    const servingCpu: number[] = [];
    const ready: number[] = [];
    const firstMessage: number[] = [];
    for (let run = 0; run < scale.runs; run++) {
      const baton = new BatonProcess({ config });
      try {
        const servingAt = await waitServing(baton, fakes);
        serving.push(servingAt - baton.spawnedAt);
        servingCpu.push(baton.cpuMs());
        ready.push((await baton.waitForLine(/^Baton ready/)).at - baton.spawnedAt);
        await sleep(FIRST_MESSAGE_AFTER_MS);
        firstMessage.push(await roundTrip(fakes, textCalls, run));
      } finally {
        await baton.stop();
      }
    }
    // Cold starts are timed one process at a time; the memory figures after them are each one
    // process's own RSS while it waits to settle, so those processes wait side by side.
    const separate: Figure[] = [];
    for (const platform of SEPARATE_KINDS) separate.push(...(await platformColdStart(platform, scale.platformRuns)));
    const [idle, perThread] = await allSettled([settledRss(config, scale.settleIntervalMs), threadAndHostCost(scale)]);
    return [
      figure(
        {
          id: "cold-start",
          label: "cold start to serving",
          unit: "ms",
          definition: `fresh \`baton start\` process (web + Telegram + Slack on fakes, no threads) → web chat listening, first getUpdates and the Slack socket seen by the fakes; ${scale.runs} processes`,
        },
        serving,
        { on: "median", below: 500, text: "median < 500 ms" },
      ),
      figure(
        {
          id: "cold-start-cpu",
          label: "cold start CPU time",
          unit: "ms",
          definition: "CPU time (user + system, all threads) Baton's process had used when it was serving: less sensitive than wall time to other load on the machine (10 ms resolution)",
        },
        servingCpu,
      ),
      figure({ id: "ready-line", label: "cold start to the ready line", unit: "ms", definition: `the same processes → "Baton ready" on stdout` }, ready),
      figure(
        {
          id: "first-message",
          label: "first message round trip after a cold start",
          unit: "ms",
          definition: `Telegram message sent ${FIRST_MESSAGE_AFTER_MS} ms after serving → first text of the demo agent's answer at the fake (its host takes over the spare agent process started after serving, or waits for it to finish starting); ${scale.runs} processes`,
        },
        firstMessage,
        { on: "median", below: 250, text: "< 250 ms" },
      ),
      figure(
        {
          id: "idle-rss",
          label: "idle RSS, settled",
          unit: "MB",
          definition: `web + Telegram + Slack, no threads, no hosts (the spare agent process's ACP client loaded): RSS once ${SETTLE_SAMPLES} samples ${scale.settleIntervalMs / 1000} s apart are within ${SETTLE_TOLERANCE * 100} % of each other`,
        },
        [idle],
        { on: "median", below: 90, text: "< 90 MB" },
      ),
      ...perThread,
      ...separate,
    ];
  } finally {
    await fakes.close();
  }
}

/**
 * Cold start with one platform alone, over fresh processes sharing one data dir: the first run
 * logs in (Matrix: a new device and its crypto store) and is not counted; the others are restarts
 * with the session in place, as an operator's daemon restarts.
 */
async function platformColdStart(platform: (typeof SEPARATE_KINDS)[number], runs: number): Promise<Figure[]> {
  const fakes = await startFakes({ [platform.kind]: true });
  const dataDir = mkdtempSync(join(tmpdir(), `baton-bench-${platform.kind}-`));
  try {
    const config = batonConfig(fakes);
    const serving: number[] = [];
    const cpu: number[] = [];
    for (let run = 0; run <= runs; run++) {
      const baton = new BatonProcess({ config, dataDir });
      try {
        const line = await baton.waitForLine(platform.connected, 90_000);
        if (run > 0) {
          serving.push(line.at - baton.spawnedAt);
          cpu.push(baton.cpuMs());
        }
        await baton.waitForLine(/^Baton ready/);
      } finally {
        await baton.stop();
      }
    }
    return [
      figure(
        {
          id: `cold-start-${platform.kind}`,
          label: `cold start with ${platform.name}`,
          unit: "ms",
          definition: `fresh \`baton start\` process, ${platform.name} alone on its fake, its session already in the data dir → "${platform.kind}: connected" on stdout (printed once the adapter serves); ${runs} processes; no target`,
        },
        serving,
      ),
      figure({ id: `cold-start-${platform.kind}-cpu`, label: `… its CPU time`, unit: "ms", definition: "CPU time (user + system, all threads) of those processes at that line" }, cpu),
    ];
  } finally {
    await fakes.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** When every enabled platform was serving, on the shared monotonic clock. */
async function waitServing(baton: BatonProcess, fakes: Fakes): Promise<number> {
  const since = baton.spawnedAt;
  const web = await baton.waitForLine(/^Web chat: http/);
  const poll = await until(() => fakes.telegram!.calls.find((c) => c.method === "getUpdates" && c.hrAt > since), "Baton's first getUpdates", 30_000);
  const socket = await until(() => fakes.slack!.socket.connectedAt.find((at) => at > since), "Baton's Slack Socket Mode connection", 30_000);
  return Math.max(web.at, poll.hrAt, socket);
}

/** A Telegram message → the first text of the answer at the fake. */
async function roundTrip(fakes: Fakes, textCalls: TextCalls, index: number): Promise<number> {
  const tg = fakes.telegram!;
  const chat = telegramUser(tg, 20_000 + index);
  const sent = chat.send("hello");
  const delivered = await until(() => tg.deliveredAt.get(sent.message_id), "the first message delivered", 30_000);
  const answer = await until(() => textCalls.to(chat.chatId, delivered)[0], "the answer to the first message", 30_000);
  return answer.hrAt - delivered;
}

/**
 * The last sample once SETTLE_SAMPLES in a row are within SETTLE_TOLERANCE of each other.
 * `reduced`: each sample right after V8's memory-reducing collection (through the bench's preload),
 * for the figures that subtract one process's RSS from another's: a fresh process otherwise settles
 * on one of two levels about 9 MB apart, before or after V8's own memory reducer has run, and the
 * idle warm-up after serving can undo one early GC.
 */
async function settle(baton: BatonProcess, intervalMs: number, reduced = false): Promise<number> {
  const deadline = Date.now() + SETTLE_MAX_MS;
  const sample = async () => {
    if (reduced) await baton.probe("reduce-memory");
    return baton.rssMb();
  };
  const samples = [await sample()];
  for (;;) {
    await sleep(intervalMs);
    samples.push(await sample());
    const recent = samples.slice(-SETTLE_SAMPLES);
    const low = Math.min(...recent);
    if (recent.length === SETTLE_SAMPLES && Math.max(...recent) - low <= low * SETTLE_TOLERANCE) return recent.at(-1)!;
    if (Date.now() > deadline) throw new Error(`bench: RSS did not settle within ${SETTLE_MAX_MS / 1000} s (last samples ${recent.map((mb) => mb.toFixed(1)).join(", ")} MB)`);
  }
}

async function settledRss(config: string, intervalMs: number, reduced = false): Promise<number> {
  const baton = new BatonProcess({ config, probe: reduced });
  try {
    await baton.waitForLine(/^Baton ready/);
    return await settle(baton, intervalMs, reduced);
  } finally {
    await baton.stop();
  }
}

/**
 * RSS with N seeded open threads against none, then with H live hosts on top, each sampled after a
 * memory-reducing GC. The process with none settles beside the other, each on a Telegram fake of
 * its own (two Batons polling one bot would take each other's updates), from the same config.
 */
async function threadAndHostCost(scale: StartupScale): Promise<Figure[]> {
  const fakes = await startFakes({ telegram: true });
  const emptyFakes = await startFakes({ telegram: true });
  const tg = fakes.telegram!;
  const textCalls = new TextCalls(tg);
  const options = { maxLiveHosts: scale.hostsForRss + 5 };
  const config = batonConfig(fakes, options);
  const dataDir = mkdtempSync(join(tmpdir(), "baton-bench-rss-"));
  let baton: BatonProcess | undefined;
  const emptyRss = settledRss(batonConfig(emptyFakes, options), scale.reducedSettleIntervalMs, true);
  emptyRss.catch(() => undefined); // awaited below; a failure meanwhile is not unhandled
  try {
    await seedOpenThreads(dataDir, scale.threadsForRss);
    baton = new BatonProcess({ config, dataDir, probe: true });
    await baton.waitForLine(/^Baton ready/);
    const withThreads = await settle(baton, scale.reducedSettleIntervalMs, true);
    const chats = Array.from({ length: scale.hostsForRss }, (_, i) => telegramUser(tg, 30_000 + i));
    for (const chat of chats) chat.send("hello");
    await until(() => chats.every((c) => textCalls.to(c.chatId).length > 0), "an answer in every chat", 120_000, 50);
    const withHosts = await settle(baton, scale.reducedSettleIntervalMs, true);
    const agents = baton.childPids().map((pid) => baton!.rssMb(pid));
    if (agents.length < scale.hostsForRss) throw new Error(`bench: ${agents.length} agent processes alive, expected ${scale.hostsForRss}`);
    const empty = await emptyRss;
    return [
      figure(
        {
          id: "rss-per-thread",
          label: "RSS per open thread",
          unit: "KB",
          definition: `Baton's settled RSS (each sample after a memory-reducing GC) with ${scale.threadsForRss.toLocaleString("en")} open threads (${withThreads.toFixed(1)} MB) minus with none (${empty.toFixed(1)} MB, another process), per thread (Telegram only)`,
        },
        [((withThreads - empty) * 1024) / scale.threadsForRss],
      ),
      figure(
        {
          id: "rss-per-host",
          label: "Baton's RSS per live host",
          unit: "MB",
          definition: `Baton's settled RSS (each sample after a memory-reducing GC) with ${scale.hostsForRss} idle live demo-agent hosts (${withHosts.toFixed(1)} MB) minus without, per host (the agent processes not included)`,
        },
        [(withHosts - withThreads) / scale.hostsForRss],
      ),
      figure({ id: "agent-rss", label: "RSS of one demo agent process", unit: "MB", definition: `each live host's own process, idle after one turn` }, agents),
    ];
  } finally {
    await emptyRss.catch(() => undefined); // its Baton stopped before the fakes close
    await baton?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    await fakes.close();
    await emptyFakes.close();
  }
}

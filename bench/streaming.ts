// Many turns at once, and one huge turn, through the real daemon (its own process, the probe
// preloaded) and the Telegram fake with Telegram's real pacing: event-loop delay from the first
// prompt on (the burst of agent start-ups included), memory and CPU, no chunk lost, no limit broken.
import type { FakeBotApi } from "../test/fakes/telegram/fake-bot-api.js";
import { AgentTimings } from "./lib/agent-timing.js";
import { BatonProcess, sleep, until } from "./lib/baton.js";
import { batonConfig, startFakes, telegramUser, TextCalls } from "./lib/fakes.js";
import { figure, type Figure } from "./lib/figure.js";

export interface StreamingScale {
  chats: number;
  /** Bytes of the huge turn, as the demo agent's `demo:stream` size (`50m`). */
  hugeTurn: string;
  hugeTurnBytes: number;
  /** After the huge turn's last chunk left the agent, memory is watched this long more. */
  hugeTurnTailMs: number;
}

export const STREAMING_FULL: StreamingScale = { chats: 100, hugeTurn: "50m", hugeTurnBytes: 50 * 1024 * 1024, hugeTurnTailMs: 10_000 };
export const STREAMING_TINY: StreamingScale = { chats: 2, hugeTurn: "256k", hugeTurnBytes: 256 * 1024, hugeTurnTailMs: 500 };

const DEADLINE_MS = 300_000;
const MEMORY_SAMPLE_MS = 100;
const HUGE_TURN_CHUNK = "64k";

interface LoopDelay {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/** Samples Baton's RSS until stopped: the peak and the first sample. */
function watchMemory(baton: BatonProcess): { stop(): { first: number; peak: number } } {
  const first = baton.rssMb();
  let peak = first;
  const timer = setInterval(() => (peak = Math.max(peak, baton.rssMb())), MEMORY_SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      return { first, peak: Math.max(peak, baton.rssMb()) };
    },
  };
}

export async function benchStreaming(scale: StreamingScale): Promise<Figure[]> {
  const fakes = await startFakes({ telegram: true });
  const tg = fakes.telegram!;
  const textCalls = new TextCalls(tg);
  const baton = new BatonProcess({ config: batonConfig(fakes, { maxLiveHosts: scale.chats + 5 }), probe: true });
  try {
    await baton.waitForLine(/^Baton ready/);
    const chats = Array.from({ length: scale.chats }, (_, i) => telegramUser(tg, 40_000 + i));
    const started = performance.now();
    const cpuBefore = baton.cpuMs();
    const memory = watchMemory(baton);
    await baton.probe("loop-start");
    // The burst: every chat's first prompt starts an agent process; then every chat streams 20 KB.
    for (const chat of chats) chat.send("hello");
    await until(() => chats.every((c) => textCalls.to(c.chatId).some((m) => String(m.params.text).includes('you said "hello"'))), "every chat's first answer", DEADLINE_MS, 100);
    for (const chat of chats) chat.send("demo:long");
    await until(() => chats.every((c) => tg.sentTo(c.chatId).some((m) => m.text.includes("The end."))), "every chat's full answer", DEADLINE_MS, 100);
    const loop = await baton.probe<LoopDelay>("loop-stop");
    const wallMs = performance.now() - started;
    const cpuMs = baton.cpuMs() - cpuBefore;
    const { first, peak } = memory.stop();
    if (loop.count < 100) throw new Error(`bench: the event-loop probe took only ${loop.count} samples`);
    return streamingFigures(scale.chats, { loop, lost: lostChats(tg, chats), violations: tg.floodRefusals.length, wallMs, cpuMs, first, peak });
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- baton output (tail) ---\n${baton.output().slice(-3000)}`);
  } finally {
    await baton.stop();
    await fakes.close();
  }
}

/** Chats whose answer lost or reordered a section, or never ended. */
function lostChats(tg: FakeBotApi, chats: Array<{ chatId: number }>): number {
  let lost = 0;
  for (const chat of chats) {
    const text = tg
      .sentTo(chat.chatId)
      .map((m) => m.text)
      .join("\n");
    const sections = [...text.matchAll(/Section (\d+)\n/g)].map((m) => Number(m[1]));
    if (sections.length === 0 || sections.some((n, i) => n !== i + 1) || !text.includes("The end.")) lost++;
  }
  return lost;
}

interface StreamingRun {
  loop: LoopDelay;
  lost: number;
  violations: number;
  wallMs: number;
  cpuMs: number;
  /** Baton's RSS before the first prompt and at its peak, MB. */
  first: number;
  peak: number;
}

function streamingFigures(n: number, { loop, lost, violations, wallMs, cpuMs, first, peak }: StreamingRun): Figure[] {
  return [
    {
      id: "loop-delay",
      label: `event-loop delay, ${n} threads streaming`,
      unit: "ms",
      definition: `perf_hooks.monitorEventLoopDelay in Baton's process (2 ms resolution, the resolution subtracted), from the first of ${n} first prompts (${n} agent start-ups) until all ${n} had streamed a 20 KB answer through Telegram`,
      n: loop.count,
      median: loop.p50,
      tail: loop.p99,
      tailKind: "p99",
      target: "p99 < 20 ms",
      ok: loop.p99 < 20,
    },
    figure(
      {
        id: "stream-lost",
        label: `${n} threads streaming: chats with a lost or reordered chunk`,
        unit: "",
        definition: "every section of every answer present, in order, ending with its last line",
      },
      [lost],
      { on: "median", below: 1, text: "0" },
    ),
    figure(
      {
        id: "stream-pacing",
        label: `${n} threads streaming: Telegram pacing violations`,
        unit: "",
        definition: "calls the fake refused with 429 for going past Telegram's flood limits (per chat, per group, per bot)",
      },
      [violations],
      { on: "median", below: 1, text: "0" },
    ),
    figure({ id: "stream-wall", label: `${n} threads streaming: wall time`, unit: "s", definition: "first prompt → every chat has its full answer (Telegram's pacing sets most of it)" }, [
      wallMs / 1000,
    ]),
    figure(
      {
        id: "stream-cpu",
        label: `${n} threads streaming: Baton's CPU`,
        unit: "%",
        definition: `Baton's user + system CPU time over that wall time, in % of one core (${Math.round(cpuMs).toLocaleString("en")} ms)`,
      },
      [(cpuMs / wallMs) * 100],
    ),
    figure({ id: "stream-rss", label: `${n} threads streaming: Baton's peak RSS`, unit: "MB", definition: `sampled every ${MEMORY_SAMPLE_MS} ms; ${first.toFixed(0)} MB before the first prompt` }, [
      peak,
    ]),
  ];
}

/**
 * One turn streaming `hugeTurn` bytes as fast as the agent writes them: how much Baton's RSS rises.
 * A fresh Baton, so memory freed by earlier work cannot hide the growth.
 */
export async function benchHugeTurn(scale: StreamingScale): Promise<Figure[]> {
  const fakes = await startFakes({ telegram: true });
  const baton = new BatonProcess({ config: batonConfig(fakes) });
  try {
    await baton.waitForLine(/^Baton ready/);
    return await hugeTurn(baton, fakes, new TextCalls(fakes.telegram!), scale);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- baton output (tail) ---\n${baton.output().slice(-3000)}`);
  } finally {
    // The answer is still going out at Telegram's pace: a clean stop cancels the turn and tells the
    // chat, waiting up to 6 s on both, none of which is measured.
    await baton.stop({ now: true });
    await fakes.close();
  }
}

async function hugeTurn(baton: BatonProcess, fakes: Awaited<ReturnType<typeof startFakes>>, textCalls: TextCalls, scale: StreamingScale): Promise<Figure[]> {
  const tg = fakes.telegram!;
  const chat = telegramUser(tg, 50_000);
  chat.send("hello");
  await until(() => textCalls.to(chat.chatId).length > 0, "the huge-turn chat's first answer", DEADLINE_MS, 50);
  await sleep(scale.hugeTurnTailMs);
  const timings = new AgentTimings(baton.timingFile);
  const prompt = `demo:stream ${scale.hugeTurn} ${HUGE_TURN_CHUNK} 0`;
  const cpuBefore = baton.cpuMs();
  const memory = watchMemory(baton);
  const started = performance.now();
  chat.send(prompt);
  await until(() => timings.refresh().streamEnd.get(prompt), "the agent to finish streaming", DEADLINE_MS, 100);
  const streamedMs = performance.now() - started;
  await sleep(scale.hugeTurnTailMs);
  const cpuMs = baton.cpuMs() - cpuBefore;
  const { first, peak } = memory.stop();
  const size = scale.hugeTurnBytes >= 1024 * 1024 ? `${Math.round(scale.hugeTurnBytes / (1024 * 1024))} MB` : `${Math.round(scale.hugeTurnBytes / 1024)} KB`;
  return [
    figure(
      {
        id: "huge-turn-rss",
        label: `a ${size} turn: Baton's RSS growth`,
        unit: "MB",
        definition: `peak RSS (sampled every ${MEMORY_SAMPLE_MS} ms) minus RSS before the prompt (${first.toFixed(0)} MB), while the agent streams ${size} in 64 KB chunks to a Telegram chat and ${scale.hugeTurnTailMs / 1000} s after; the agent took ${(streamedMs / 1000).toFixed(1)} s`,
      },
      [peak - first],
      { on: "median", below: 50, text: "< 50 MB" },
    ),
    figure({ id: "huge-turn-cpu", label: `a ${size} turn: Baton's CPU time`, unit: "ms", definition: "user + system, over the same span" }, [cpuMs]),
  ];
}

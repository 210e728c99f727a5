// Inbound latency and Baton's own overhead, end to end through the real path: the Telegram fake
// answers a long poll with an update → Baton (its own process: grammY poller → core → supervisor
// → ACP) → the session/prompt line reaches a demo agent's stdin; the agent reports that moment and
// when it wrote its first answer chunk, and the fake notes when the first text comes back.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus } from "node:os";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentTimings } from "./lib/agent-timing.js";
import { BatonProcess, sleep, until } from "./lib/baton.js";
import { batonConfig, startFakes, telegramUser, TextCalls } from "./lib/fakes.js";
import { figure, type Figure } from "./lib/figure.js";
import { seedOpenThreads } from "./lib/seed.js";

export interface InboundScale {
  openThreads: number;
  /** Chats the probes go to, round robin (each has its own live agent). */
  probeChats: number;
  overheadSamples: number;
  /**
   * Round-trip probes per second. Each answer is a message and an edit a second later; Telegram
   * allows about 1 call a second per chat and 30 in all, so probes stay under both: a probe never
   * waits for the pacing, which is not Baton's overhead.
   */
  overheadPerSecond: number;
  streams: number;
  /** What each streaming chat asks for: long enough to outlast the probes. */
  streamPrompt: string;
  streamRate: string;
  inboundSamples: number;
  inboundPerSecond: number;
}

export const INBOUND_FULL: InboundScale = {
  openThreads: 1_000,
  probeChats: 60,
  overheadSamples: 2_000,
  overheadPerSecond: 12,
  streams: 50,
  streamPrompt: "demo:stream 10m 100 50",
  streamRate: "2 KB/s",
  inboundSamples: 2_000,
  inboundPerSecond: 100,
};

export const INBOUND_TINY: InboundScale = { ...INBOUND_FULL, openThreads: 20, probeChats: 3, overheadSamples: 6, overheadPerSecond: 1, streams: 2, inboundSamples: 20, inboundPerSecond: 50 };

const PROBE_ID = /\b(ping|probe)-(\d+)\b/;
/** A stream with no text for this long when the probes end counts as stopped. */
const STILL_DELIVERING_MS = 15_000;
/** Generous: 50 agent start-ups on a loaded 2-core machine take minutes. */
const PHASE_TIMEOUT_MS = 900_000;

export async function benchInbound(scale: InboundScale): Promise<Figure[]> {
  const fakes = await startFakes({ telegram: true });
  const tg = fakes.telegram!;
  const dataDir = mkdtempSync(join(tmpdir(), "baton-bench-inbound-"));
  await seedOpenThreads(dataDir, scale.openThreads);
  const textCalls = new TextCalls(tg);
  // The probe preload notes when each prompt line was written into its agent's stdin pipe.
  const baton = new BatonProcess({ config: batonConfig(fakes, { maxLiveHosts: scale.probeChats + scale.streams + 10 }), dataDir, probe: true });
  try {
    await baton.waitForLine(/Baton ready/);
    const timings = new AgentTimings(baton.timingFile, (text) => PROBE_ID.exec(text)?.[0]);
    const chats = Array.from({ length: scale.probeChats }, (_, i) => telegramUser(tg, i));
    // Every probe chat gets its thread and a live agent first: starting agents is not what this measures.
    for (const chat of chats) chat.send("warm up");
    await until(() => chats.every((c) => textCalls.to(c.chatId).length > 0), "a first answer in every probe chat", PHASE_TIMEOUT_MS, 50);
    await sleep(1_500); // the per-chat send budget (1 s) is clear again before the round-trip probes

    // Phase 1: round trips, one at a time per chat, nothing else running.
    const pings = await sendAtRate(scale.overheadSamples, scale.overheadPerSecond, (i) => {
      const chat = chats[i % chats.length];
      return { chatId: chat.chatId, id: `ping-${i}`, messageId: chat.send(`ping-${i}`).message_id };
    });
    await until(() => timings.refresh() && pings.every((p) => timings.firstOut.has(p.id) && firstTextAfter(p) !== undefined), "every round-trip probe answered", PHASE_TIMEOUT_MS, 50);
    function firstTextAfter(p: Probe) {
      return textCalls.to(p.chatId, delivered(p)).find((c) => String(c.params.text ?? "").length > 0);
    }
    function delivered(p: Probe): number {
      const at = tg.deliveredAt.get(p.messageId);
      if (at === undefined) throw new Error(`bench: the fake never delivered ${p.id}`);
      return at;
    }
    const { promptIn, firstOut } = timings;
    const overhead = pings.map((p) => firstTextAfter(p)!.hrAt - delivered(p) - (firstOut.get(p.id)! - promptIn.get(p.id)!));
    const inboundIdle = pings.map((p) => promptIn.get(p.id)! - delivered(p));

    // Phase 2: inbound under load. The streams start (agent start-up included), then probes that
    // the agent answers with nothing, so a probe never waits behind an earlier probe's delivery.
    const streamers = Array.from({ length: scale.streams }, (_, i) => telegramUser(tg, 10_000 + i));
    for (const s of streamers) s.send(scale.streamPrompt);
    await until(() => streamers.every((s) => textCalls.to(s.chatId).length > 0), "text from every streaming chat", PHASE_TIMEOUT_MS, 50);
    const loadStartedAt = Date.now();
    const machineBefore = machineCpu();
    const batonBefore = baton.cpuMs();
    const probesFrom = performance.now();
    const probes = await sendAtRate(scale.inboundSamples, scale.inboundPerSecond, (i) => {
      const chat = chats[i % chats.length];
      return { chatId: chat.chatId, id: `probe-${i}`, messageId: chat.send(`demo:quiet probe-${i}`).message_id };
    });
    const probesWallMs = performance.now() - probesFrom;
    const batonBusy = ((baton.cpuMs() - batonBefore) / probesWallMs) * 100;
    const machineBusy = machineCpu().busySince(machineBefore);
    await until(() => timings.refresh() && probes.every((p) => timings.promptIn.has(p.id)), "every inbound probe at an agent's stdin", PHASE_TIMEOUT_MS, 20);
    const inbound = probes.map((p) => timings.promptIn.get(p.id)! - delivered(p));
    // Where that time went: until Baton writes the line into the agent's stdin pipe, and from
    // there (the write's syscall included) until the agent process read it.
    const writtenAt = new Map<string, number>();
    for (const [at, line] of (await baton.probe<{ writes: Array<[number, string]> }>("prompt-writes")).writes) {
      const id = PROBE_ID.exec(line)?.[0];
      if (id && !writtenAt.has(id)) writtenAt.set(id, at);
    }
    const written = (p: Probe) => {
      const at = writtenAt.get(p.id);
      if (at === undefined) throw new Error(`bench: the probe preload saw no session/prompt write for ${p.id}`);
      return at;
    };
    const inboundWritten = probes.map((p) => written(p) - delivered(p));
    const inboundAgentRead = probes.map((p) => timings.promptIn.get(p.id)! - written(p));
    // The load must have lasted: no stream's agent finished, and every stream still delivering. 50
    // streams share Telegram's 30 messages a second, so one chat's edits can be seconds apart.
    const streamsEnded = new AgentTimings(baton.timingFile, (text) => (text.startsWith("demo:stream") ? "stream" : undefined)).refresh().streamEnd.size;
    const stillStreaming = streamers.filter((s) => textCalls.to(s.chatId).some((c) => c.at >= Date.now() - STILL_DELIVERING_MS)).length;
    if (streamsEnded > 0 || stillStreaming < scale.streams) throw new Error(`bench: ${streamsEnded > 0 ? "a stream ended" : `only ${stillStreaming} of ${scale.streams} streams delivered in the last ${STILL_DELIVERING_MS / 1000} s`} before the probes ended (load started ${Date.now() - loadStartedAt} ms before)`);

    const threads = scale.openThreads.toLocaleString("en");
    return [
      figure(
        { id: "inbound", label: "inbound, under load", unit: "ms", definition: `update leaves the Telegram fake (long-poll answer) → session/prompt line reaches the agent's stdin; ${threads} open threads, ${scale.streams} turns streaming ${scale.streamRate} each, probes at ${scale.inboundPerSecond}/s` },
        inbound,
        { on: "tail", below: 3, text: "p99 < 3 ms" },
      ),
      figure({ id: "inbound-written", label: "… of it, until Baton writes the line into the agent's stdin pipe", unit: "ms", definition: "update leaves the Telegram fake → Baton calls write() with the session/prompt line on the agent's stdin (noted in Baton's process by the bench's preload)" }, inboundWritten),
      figure({ id: "inbound-agent-read", label: "… of it, from there until the agent process read it", unit: "ms", definition: "Baton's write() of the line → the demo agent's stdin 'data' event (the pipe write, then the agent's process waking and being scheduled on the loaded machine)" }, inboundAgentRead),
      figure({ id: "inbound-baton-cpu", label: "… meanwhile, Baton's CPU", unit: "%", definition: "Baton's user + system time while the probes were sent, in % of one core" }, [batonBusy]),
      figure({ id: "inbound-machine-cpu", label: "… meanwhile, the whole machine's CPU", unit: "%", definition: `all processes (Baton, ${scale.streams + scale.probeChats} agents, the bench and its fakes) while the probes were sent, in % of all ${cpus().length} cores (/proc/stat)` }, [machineBusy]),
      figure(
        { id: "inbound-idle", label: "inbound, no other turn running", unit: "ms", definition: `the same path, ${threads} open threads, nothing streaming, probes at ${scale.overheadPerSecond}/s` },
        inboundIdle,
      ),
      figure(
        { id: "overhead", label: "Baton's overhead on a round trip", unit: "ms", definition: `update leaves the Telegram fake → first message with the answer reaches it, minus the agent's own time (prompt line in → first chunk out); the demo reply streams 4 chunks 25 ms apart; ${threads} open threads` },
        overhead,
        { on: "median", below: 10, text: "p50 < 10 ms" },
      ),
    ];
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- baton output (tail) ---\n${baton.output().slice(-3000)}`);
  } finally {
    await baton.stop();
    await fakes.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The machine's CPU time so far, all cores (/proc/stat), to say how busy it was between two readings. */
function machineCpu(): { busySince(before: ReturnType<typeof machineCpu>): number; busy: number; total: number } {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((sum, n) => sum + n, 0);
  const idle = fields[3] + (fields[4] ?? 0);
  return { busy: total - idle, total, busySince: (before) => ((total - idle - before.busy) / (total - before.total)) * 100 };
}

interface Probe {
  chatId: number;
  id: string;
  messageId: number;
}

/** Sends `count` probes at a fixed rate (open loop: a slow answer does not delay the next probe). */
async function sendAtRate(count: number, perSecond: number, send: (i: number) => Probe): Promise<Probe[]> {
  const sent: Probe[] = [];
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const due = start + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    sent.push(send(i));
  }
  return sent;
}

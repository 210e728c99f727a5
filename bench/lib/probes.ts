// Probes of the inbound path shared by the suites that send them: sent at a fixed rate, matched to
// the session/prompt lines Baton wrote (noted by the bench's preload, bench/probe.mjs), and the
// machine's CPU while they ran.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FakeBotApi } from "../../test/fakes/telegram/fake-bot-api.js";
import { AgentTimings } from "./agent-timing.js";
import { BatonProcess, sleep } from "./baton.js";
import { batonConfig, startFakes, TextCalls, type ConfigOptions } from "./fakes.js";

/** The id a probe's text carries, found again in the prompt line and in the agent's report. */
const PROBE_ID = /\b(ping|probe|busy)-(\d+)\b/;

export interface TelegramRun {
  tg: FakeBotApi;
  baton: BatonProcess;
  textCalls: TextCalls;
  /** What the demo agents report, keyed by the probe id in the prompt. */
  timings: AgentTimings;
  /** When the fake handed the probe's message to Baton (monotonic ms). */
  delivered(probe: Pick<Probe, "messageId">): number;
}

/**
 * Runs `body` against a Baton process of its own (with the probe preload) on the Telegram fake and
 * a fresh data dir (`seed` fills it first). Baton's output joins any error; Baton (and with it its
 * agents), the fake and the data dir are gone afterwards.
 */
export async function withTelegramBaton<T>(config: ConfigOptions, seed: (dataDir: string) => Promise<void>, body: (run: TelegramRun) => Promise<T>): Promise<T> {
  const fakes = await startFakes({ telegram: true });
  const tg = fakes.telegram!;
  const dataDir = mkdtempSync(join(tmpdir(), "baton-bench-probes-"));
  const textCalls = new TextCalls(tg);
  let baton: BatonProcess | undefined;
  try {
    await seed(dataDir);
    baton = new BatonProcess({ config: batonConfig(fakes, config), dataDir, probe: true });
    await baton.waitForLine(/Baton ready/);
    const timings = new AgentTimings(baton.timingFile, (text) => PROBE_ID.exec(text)?.[0]);
    const delivered = ({ messageId }: Pick<Probe, "messageId">) => {
      const at = tg.deliveredAt.get(messageId);
      if (at === undefined) throw new Error(`bench: the fake never delivered message ${messageId}`);
      return at;
    };
    return await body({ tg, baton, textCalls, timings, delivered });
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- baton output (tail) ---\n${baton?.output().slice(-3000) ?? "(not started)"}`);
  } finally {
    // Its figures are read: the turns still running (streams, burning agents) need no clean stop,
    // which would cancel each and tell its chat at Telegram's pace.
    await baton?.stop({ now: true });
    await fakes.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export interface Probe {
  chatId: number;
  id: string;
  messageId: number;
}

/** When Baton wrote each probe's session/prompt line into its agent's stdin (noted by the bench's preload). */
export async function promptWrites(baton: BatonProcess): Promise<(p: Probe) => number> {
  const writtenAt = new Map<string, number>();
  for (const [at, line] of (await baton.probe<{ writes: Array<[number, string]> }>("prompt-writes")).writes) {
    const id = PROBE_ID.exec(line)?.[0];
    if (id && !writtenAt.has(id)) writtenAt.set(id, at);
  }
  return (p) => {
    const at = writtenAt.get(p.id);
    if (at === undefined) throw new Error(`bench: the probe preload saw no session/prompt write for ${p.id}`);
    return at;
  };
}

export interface MachineCpu {
  /** User + system (+ irq) time of all cores, clock ticks; time the hypervisor took is not in it. */
  busy: number;
  /** Time the hypervisor gave this VM's cores to other machines ("steal"), clock ticks. */
  steal: number;
  total: number;
  /** % of all cores' time since `before` that this machine's processes ran. */
  busySince(before: MachineCpu): number;
  /** % of all cores' time since `before` that the hypervisor ran something else: a run with much of it is not comparable. */
  stealSince(before: MachineCpu): number;
}

/** The machine's CPU time so far, all cores (/proc/stat), to say how busy it was between two readings. */
export function machineCpu(): MachineCpu {
  // user nice system idle iowait irq softirq steal guest guest_nice (guest time is already in user)
  const [user, nice, system, idle, iowait, irq, softirq, steal = 0] = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  const busy = user + nice + system + irq + softirq;
  const total = busy + idle + iowait + steal;
  return {
    busy,
    steal,
    total,
    busySince: (before) => ((busy - before.busy) / (total - before.total)) * 100,
    stealSince: (before) => ((steal - before.steal) / (total - before.total)) * 100,
  };
}

/** Sends `count` probes at a fixed rate (open loop: a slow answer does not delay the next probe). */
export async function sendAtRate(count: number, perSecond: number, send: (i: number) => Probe): Promise<Probe[]> {
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

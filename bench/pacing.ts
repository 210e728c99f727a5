// Short answers and pacing, per platform, through the real daemon (its own process) and each
// platform's fake enforcing the platform's documented rate limits (a call past them is refused
// with a 429): how soon a short answer shows whole, and how fast ten prompts written back to back
// into one chat are all answered, with the usage line on as shipped.
//
// One Baton per platform (and one more for Telegram without the hold), all started at once. They
// are measured one at a time, each measurement followed by a wait until that Baton and its agents
// are at rest; what overlaps is only a person's pause before writing again in one chat, which
// another chat's answer fills (the pause is the same as it was when the platforms ran in turn),
// the warm-ups, and the back-to-back prompts: those take seconds of waiting on each platform's
// rate limits with a few milliseconds of CPU, so the platforms take them side by side.
import { monotonicMs } from "../src/kernel/clock.js";
import { BatonProcess, sleep, until } from "./lib/baton.js";
import { batonConfig, startFakes, type FakeKind, type Fakes } from "./lib/fakes.js";
import { figure, type Figure } from "./lib/figure.js";
import { ANSWER_TIMEOUT_MS, answered, chatOn, isWhole, PLATFORMS, type Chat, type Platform } from "./lib/pacing-chat.js";

export interface PacingScale {
  /** Short answers timed per platform, one at a time. */
  samples: number;
  /** Between two timed prompts: a person reads the answer before writing again. */
  restMs: number;
  /** Prompts written back to back into one chat. */
  backToBack: number;
}

export const PACING_FULL: PacingScale = { samples: 8, restMs: 2_000, backToBack: 10 };
export const PACING_TINY: PacingScale = { samples: 2, restMs: 2_500, backToBack: 3 };
/** A brisk conversation: a prompt this often, so the chat's burst is spent and refills about as fast. */
const BRISK_EVERY_MS = 1_200;

const WHOLE_TARGET_MS = 300;
const BACK_TO_BACK_TARGET_S = 12;

/** One platform's Baton and chat; `holdOff`: Telegram with `rendering.first_send_hold_ms: 0`. */
interface PacingRun {
  platform: Platform;
  name: string;
  holdOff: boolean;
  fakes: Fakes;
  baton: BatonProcess;
  chat: Chat;
  /** When its last answer was whole (monotonic ms): the person's pause before the next prompt starts there. */
  lastEnd: number;
}

export async function benchPacing(scale: PacingScale): Promise<Figure[]> {
  // The hold before a first send, measured by its absence: the same back-to-back prompts without it.
  const configs = [...PLATFORMS.map((platform) => ({ platform, holdOff: false })), { platform: "telegram" as const, holdOff: true }];
  const started = await Promise.allSettled(configs.map((c) => startRun(c.platform, c.holdOff)));
  const runs = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  try {
    const failed = started.find((s) => s.status === "rejected");
    if (failed) throw failed.reason;
    for (const run of runs) await run.baton.quiet();
    await together(runs, 0, (run) => answered(run.chat, "warm up"));
    const backToBack = new Map<PacingRun, number>();
    const brisk = new Map<PacingRun, number[]>();
    // Each Telegram chat's brisk prompts come right after its own back-to-back prompts (and the
    // pause), where its burst is spent: the two Telegram chats' back-to-back prompts go in turn.
    for (const group of [runs.filter((r) => !r.holdOff), runs.filter((r) => r.holdOff)]) {
      for (const [run, seconds] of await together(group, scale.restMs, (run) => promptsBackToBack(run.chat, scale))) backToBack.set(run, seconds);
      for (const run of group.filter((r) => r.platform === "telegram")) brisk.set(run, await measured(run, scale.restMs, () => briskWhole(run.chat, scale)));
    }
    const timed = await shortAnswers(
      runs.filter((r) => !r.holdOff),
      scale,
    );
    return runs.flatMap((run) =>
      run.holdOff ? holdOffFigures(run, scale, backToBack.get(run)!, brisk.get(run)!) : platformFigures(run, scale, timed.get(run)!, backToBack.get(run)!, brisk.get(run)),
    );
  } finally {
    await Promise.all(runs.map((run) => run.baton.stop().then(() => run.fakes.close())));
  }
}

async function startRun(platform: Platform, holdOff: boolean): Promise<PacingRun> {
  const fakes = await startFakes({ [platform]: true } as Partial<Record<FakeKind, boolean>>);
  const { chat, allow } = chatOn(platform, fakes);
  const rendering = { show_usage: true, ...(holdOff ? { first_send_hold_ms: 0 } : {}) };
  const baton = new BatonProcess({ config: batonConfig(fakes, { allow: [allow], rendering }) });
  const run: PacingRun = { platform, name: platform[0].toUpperCase() + platform.slice(1), holdOff, fakes, baton, chat, lastEnd: 0 };
  try {
    await baton.waitForLine(/^Baton ready/);
    return run;
  } catch (error) {
    await baton.stop();
    await fakes.close();
    throw error;
  }
}

/**
 * One measurement on one run: after its person's pause (counted from its last answer), `work`, then
 * a wait until its Baton and agents are at rest, so that the next measurement, on any run, has the
 * machine to itself.
 */
async function measured<T>(run: PacingRun, restMs: number, work: () => Promise<T>): Promise<T> {
  return (await together([run], restMs, work)).get(run)!;
}

/**
 * measured() on several runs side by side, each after its own person's pause; the wait for rest
 * comes once all are done. Only for what waits on the platforms' pacing, never for a latency.
 */
async function together<T>(runs: PacingRun[], restMs: number, work: (run: PacingRun) => Promise<T>): Promise<Map<PacingRun, T>> {
  const results = await Promise.all(
    runs.map(async (run) => {
      await sleep(Math.max(0, run.lastEnd + restMs - monotonicMs()));
      try {
        const result = await work(run);
        run.lastEnd = monotonicMs();
        return result;
      } catch (error) {
        throw new Error(`${run.name}${run.holdOff ? " (no hold)" : ""}: ${(error as Error).message}\n--- baton output (tail) ---\n${run.baton.output().slice(-3000)}`);
      }
    }),
  );
  for (const run of runs) await run.baton.quiet();
  return new Map(runs.map((run, i) => [run, results[i]]));
}

/** Timed short answers, the platforms taking turns: one chat's pause before its next prompt is another's answer. */
async function shortAnswers(runs: PacingRun[], scale: PacingScale): Promise<Map<PacingRun, { whole: number[]; first: number[] }>> {
  const timed = new Map(runs.map((run) => [run, { whole: [] as number[], first: [] as number[] }]));
  for (let i = 0; i < scale.samples; i++) {
    for (const run of runs) {
      const answer = await measured(run, scale.restMs, () => answered(run.chat, `short answer ${i}`));
      timed.get(run)!.whole.push(answer.wholeMs);
      timed.get(run)!.first.push(answer.firstMs);
    }
  }
  return timed;
}

/** Whole-answer times of prompts written every BRISK_EVERY_MS, each after the last was answered. */
async function briskWhole(chat: Chat, scale: PacingScale): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < scale.samples; i++) {
    const started = monotonicMs();
    times.push((await answered(chat, `brisk ${i}`)).wholeMs);
    if (i < scale.samples - 1) await sleep(Math.max(0, BRISK_EVERY_MS - (monotonicMs() - started)));
  }
  return times;
}

async function promptsBackToBack(chat: Chat, scale: PacingScale): Promise<number> {
  const prompts = Array.from({ length: scale.backToBack }, (_, i) => `back to back ${i}`);
  const before = chat.shown().length;
  const started = monotonicMs();
  for (const prompt of prompts) await chat.say(prompt);
  const done = (prompt: string) =>
    chat
      .shown()
      .slice(before)
      .find((c) => isWhole(c.text, prompt));
  await until(() => prompts.every(done), "every back-to-back answer", ANSWER_TIMEOUT_MS, 5);
  return (Math.max(...prompts.map((p) => done(p)!.at)) - started) / 1000;
}

function holdOffFigures(run: PacingRun, scale: PacingScale, backToBack: number, brisk: number[]): Figure[] {
  return [
    figure(
      {
        id: "back-to-back-no-hold",
        label: `${scale.backToBack} prompts back to back, ${run.name}, without the hold before a first send`,
        unit: "s",
        definition: "as above, rendering.first_send_hold_ms: 0",
      },
      [backToBack],
    ),
    figure(
      {
        id: "whole-brisk-no-hold",
        label: `whole short answer, a prompt every ${BRISK_EVERY_MS / 1000} s, ${run.name}, without the hold`,
        unit: "ms",
        definition: "as above, rendering.first_send_hold_ms: 0",
      },
      brisk,
    ),
  ];
}

function platformFigures(run: PacingRun, scale: PacingScale, timed: { whole: number[]; first: number[] }, backToBack: number, brisk: number[] | undefined): Figure[] {
  const { name, platform } = run;
  return [
    figure(
      {
        id: `whole-${platform}`,
        label: `whole short answer, ${name}`,
        unit: "ms",
        definition: `the prompt leaves the ${name} fake → the call that first shows the whole answer (the demo agent streams it in 4 chunks over ~75 ms; the usage line on), warm agent, ${scale.restMs / 1000} s between prompts (the platforms take turns, one answer at a time)`,
      },
      timed.whole,
      { on: "median", below: WHOLE_TARGET_MS, text: `p50 ≤ ${WHOLE_TARGET_MS} ms` },
    ),
    figure({ id: `first-${platform}`, label: `… its first words, ${name}`, unit: "ms", definition: "the same prompts → the first call with any of the answer" }, timed.first),
    figure(
      {
        id: `back-to-back-${platform}`,
        label: `${scale.backToBack} prompts back to back, ${name}`,
        unit: "s",
        definition: `${scale.backToBack} prompts written at once into one private chat → every answer shown whole (with its usage line), the fake enforcing ${name}'s rate limits`,
      },
      [backToBack],
      { on: "median", below: BACK_TO_BACK_TARGET_S, text: `< ${BACK_TO_BACK_TARGET_S} s` },
    ),
    ...(brisk
      ? [
          figure(
            {
              id: `whole-brisk-${platform}`,
              label: `whole short answer, a prompt every ${BRISK_EVERY_MS / 1000} s, ${name}`,
              unit: "ms",
              definition: `prompt → the call that shows the whole answer, each prompt ${BRISK_EVERY_MS / 1000} s after the last: the chat's burst spent, a send and an edit no longer both go at once (where the hold before a first send counts)`,
            },
            brisk,
          ),
        ]
      : []),
    figure(
      {
        id: `rate-refusals-${platform}`,
        label: `calls ${name}'s fake refused for its rate limits`,
        unit: "",
        definition: "429s the fake answered over this platform's whole run (its limits as documented)",
      },
      [run.chat.refusals()],
      { on: "median", below: 1, text: "0" },
    ),
  ];
}

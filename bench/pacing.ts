// Short answers and pacing, per platform, through the real daemon (its own process) and each
// platform's fake enforcing the platform's documented rate limits (a call past them is refused
// with a 429): how soon a short answer shows whole, and how fast ten prompts written back to back
// into one chat are all answered, with the usage line on as shipped.
import { monotonicMs } from "../src/kernel/clock.js";
import { visibleText as slackText } from "../test/fakes/slack/index.js";
import { visibleText as discordText } from "../test/fakes/discord/index.js";
import { BatonProcess, sleep, until } from "./lib/baton.js";
import { batonConfig, startFakes, telegramUser, type FakeKind, type Fakes } from "./lib/fakes.js";
import { figure, type Figure } from "./lib/figure.js";

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

const PLATFORMS = ["telegram", "slack", "discord"] as const;
type Platform = (typeof PLATFORMS)[number];
const WHOLE_TARGET_MS = 300;
const BACK_TO_BACK_TARGET_S = 12;
const ANSWER_TIMEOUT_MS = 60_000;

/** One private chat with the bot, at the wire: what a person writes, and the bot's calls that show text. */
interface Chat {
  /** Writes `text`; returns when it left the fake (monotonic ms). */
  say(text: string): number | Promise<number>;
  /** The bot's successful sends and edits in this chat: when each reached the fake (monotonic ms) and its text. */
  shown(): Array<{ at: number; text: string }>;
  /** Calls the fake refused for going past the platform's rate limits. */
  refusals(): number;
}

export async function benchPacing(scale: PacingScale): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const platform of PLATFORMS) figures.push(...(await benchPlatform(platform, scale)));
  // The hold before a first send, measured by its absence: the same back-to-back prompts without it.
  figures.push(...(await benchPlatform("telegram", scale, { holdOff: true })));
  return figures;
}

async function benchPlatform(platform: Platform, scale: PacingScale, options: { holdOff?: boolean } = {}): Promise<Figure[]> {
  const fakes = await startFakes({ [platform]: true } as Partial<Record<FakeKind, boolean>>);
  const { chat, allow } = chatOn(platform, fakes);
  const rendering = { show_usage: true, ...(options.holdOff ? { first_send_hold_ms: 0 } : {}) };
  const baton = new BatonProcess({ config: batonConfig(fakes, { allow: [allow], rendering }) });
  try {
    await baton.waitForLine(/^Baton ready/);
    await answered(chat, "warm up");
    const backToBack = await promptsBackToBack(chat, scale);
    const name = platform[0].toUpperCase() + platform.slice(1);
    const brisk = platform === "telegram" ? await briskWhole(chat, scale) : [];
    if (options.holdOff) {
      return [
        figure(
          {
            id: "back-to-back-no-hold",
            label: `${scale.backToBack} prompts back to back, ${name}, without the hold before a first send`,
            unit: "s",
            definition: "as above, rendering.first_send_hold_ms: 0",
          },
          [backToBack],
        ),
        figure(
          {
            id: "whole-brisk-no-hold",
            label: `whole short answer, a prompt every ${BRISK_EVERY_MS / 1000} s, ${name}, without the hold`,
            unit: "ms",
            definition: "as above, rendering.first_send_hold_ms: 0",
          },
          brisk,
        ),
      ];
    }
    const whole: number[] = [];
    const first: number[] = [];
    for (let i = 0; i < scale.samples; i++) {
      await sleep(scale.restMs);
      const timed = await answered(chat, `short answer ${i}`);
      whole.push(timed.wholeMs);
      first.push(timed.firstMs);
    }
    return [
      figure(
        {
          id: `whole-${platform}`,
          label: `whole short answer, ${name}`,
          unit: "ms",
          definition: `the prompt leaves the ${name} fake → the call that first shows the whole answer (the demo agent streams it in 4 chunks over ~75 ms; the usage line on), warm agent, ${scale.restMs / 1000} s between prompts`,
        },
        whole,
        { on: "median", below: WHOLE_TARGET_MS, text: `p50 ≤ ${WHOLE_TARGET_MS} ms` },
      ),
      figure({ id: `first-${platform}`, label: `… its first words, ${name}`, unit: "ms", definition: "the same prompts → the first call with any of the answer" }, first),
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
      ...(brisk.length > 0
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
        [chat.refusals()],
        { on: "median", below: 1, text: "0" },
      ),
    ];
  } catch (error) {
    throw new Error(`${platform}: ${(error as Error).message}\n--- baton output (tail) ---\n${baton.output().slice(-3000)}`);
  } finally {
    await baton.stop();
    await fakes.close();
  }
}

/** Writes one prompt and waits for its whole answer (with the usage line): first and whole, from the wire. */
async function answered(chat: Chat, prompt: string): Promise<{ firstMs: number; wholeMs: number }> {
  const before = chat.shown().length;
  const sentAt = await chat.say(prompt);
  // One prompt at a time: every call after it is its answer's.
  const calls = () => chat.shown().slice(before);
  const whole = await until(() => calls().find((c) => isWhole(c.text, prompt)), `the whole answer to "${prompt}"`, ANSWER_TIMEOUT_MS, 5);
  return { firstMs: calls()[0].at - sentAt, wholeMs: whole.at - sentAt };
}

/** Whole-answer times of prompts written every BRISK_EVERY_MS, each after the last was answered. */
async function briskWhole(chat: Chat, scale: PacingScale): Promise<number[]> {
  await sleep(scale.restMs);
  const times: number[] = [];
  for (let i = 0; i < scale.samples; i++) {
    const started = monotonicMs();
    times.push((await answered(chat, `brisk ${i}`)).wholeMs);
    await sleep(Math.max(0, BRISK_EVERY_MS - (monotonicMs() - started)));
  }
  return times;
}

async function promptsBackToBack(chat: Chat, scale: PacingScale): Promise<number> {
  await sleep(scale.restMs);
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

/** The demo agent's answer to `prompt`, whole, and its usage line. */
function isWhole(text: string, prompt: string): boolean {
  return /you said ["“]/.test(text) && (text.includes(`${prompt}"`) || text.includes(`${prompt}&quot;`)) && text.includes("📊");
}

function chatOn(platform: Platform, fakes: Fakes): { chat: Chat; allow: string } {
  if (platform === "telegram") {
    const tg = fakes.telegram!;
    const person = telegramUser(tg, 900);
    const texts = (c: (typeof tg.calls)[number]) => (c.method === "sendMessage" || c.method === "editMessageText") && !c.failed && Number(c.params.chat_id) === person.chatId;
    return {
      allow: "telegram:*",
      chat: {
        say: async (text) => {
          const id = person.send(text).message_id;
          return until(() => tg.deliveredAt.get(id), "the prompt to leave the fake", ANSWER_TIMEOUT_MS, 1);
        },
        shown: () => tg.calls.filter(texts).map((c) => ({ at: c.hrAt, text: String(c.params.text) })),
        refusals: () => tg.floodRefusals.length,
      },
    };
  }
  // Slack and Discord note calls in epoch ms: their times are moved onto the monotonic clock.
  const offset = monotonicMs() - Date.now();
  if (platform === "slack") {
    const slack = fakes.slack!;
    const channel = "D0BENCH";
    return {
      allow: "slack:U0BENCH",
      chat: {
        say: (text) => {
          slack.event({ type: "message", channel, channel_type: "im", user: "U0BENCH", text, ts: slack.nextTs() });
          return monotonicMs();
        },
        shown: () =>
          slack.calls
            .filter((c) => (c.method === "chat.postMessage" || c.method === "chat.update") && c.outcome === "ok" && c.params.channel === channel)
            .map((c) => ({ at: c.at + offset, text: slackText(c.params) })),
        refusals: () => slack.floodRefusals.length,
      },
    };
  }
  const discord = fakes.discord!;
  const person = discord.addUser("bencher");
  const dm = discord.dmChannel(person);
  const texts = (c: (typeof discord.calls)[number]) =>
    c.status < 400 &&
    c.params.channel === dm.id &&
    ((c.method === "POST" && c.route === "/channels/:channel/messages") || (c.method === "PATCH" && c.route === "/channels/:channel/messages/:message"));
  return {
    allow: `discord:${person.id}`,
    chat: {
      say: (text) => {
        discord.say(person, dm, text);
        return monotonicMs();
      },
      shown: () => discord.calls.filter(texts).map((c) => ({ at: c.at + offset, text: discordText(c.body?.content ?? "") })),
      refusals: () => discord.http.floodRefusals.length,
    },
  };
}

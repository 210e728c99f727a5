// The pacing suite's chat with the bot on each platform, at the fake's wire: what a person writes
// and the bot's calls that show text, on the monotonic clock; and a prompt's answer timed from it.
import { monotonicMs } from "../../src/kernel/clock.js";
import { visibleText as slackText } from "../../test/fakes/slack/index.js";
import { visibleText as discordText } from "../../test/fakes/discord/index.js";
import { until } from "./baton.js";
import { telegramUser, type Fakes } from "./fakes.js";

export const PLATFORMS = ["telegram", "slack", "discord"] as const;
export type Platform = (typeof PLATFORMS)[number];
export const ANSWER_TIMEOUT_MS = 60_000;

/** One private chat with the bot, at the wire: what a person writes, and the bot's calls that show text. */
export interface Chat {
  /** Writes `text`; returns when it left the fake (monotonic ms). */
  say(text: string): number | Promise<number>;
  /** The bot's successful sends and edits in this chat: when each reached the fake (monotonic ms) and its text. */
  shown(): Array<{ at: number; text: string }>;
  /** Calls the fake refused for going past the platform's rate limits. */
  refusals(): number;
}

/** Writes one prompt and waits for its whole answer (with the usage line): first and whole, from the wire. */
export async function answered(chat: Chat, prompt: string): Promise<{ firstMs: number; wholeMs: number }> {
  const before = chat.shown().length;
  const sentAt = await chat.say(prompt);
  // One prompt at a time: every call after it is its answer's.
  const calls = () => chat.shown().slice(before);
  const whole = await until(() => calls().find((c) => isWhole(c.text, prompt)), `the whole answer to "${prompt}"`, ANSWER_TIMEOUT_MS, 5);
  return { firstMs: calls()[0].at - sentAt, wholeMs: whole.at - sentAt };
}

/** The demo agent's answer to `prompt`, whole, and its usage line. */
export function isWhole(text: string, prompt: string): boolean {
  return /you said ["“]/.test(text) && (text.includes(`${prompt}"`) || text.includes(`${prompt}&quot;`)) && text.includes("📊");
}

export function chatOn(platform: Platform, fakes: Fakes): { chat: Chat; allow: string } {
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

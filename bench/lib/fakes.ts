// The platforms Baton talks to during a benchmark: the wire-level fakes of the tests, run in the
// bench process (Baton runs in its own), and the config that points Baton at them.
import { stringify } from "yaml";
import { FakeBotApi } from "../../test/fakes/telegram/fake-bot-api.js";
import { privateChat, user } from "../../test/fakes/telegram/fake-chats.js";
import { FakeSlack } from "../../test/fakes/slack/index.js";
import { FakeDiscord } from "../../test/fakes/discord/index.js";
import { FakeHomeserver } from "../../test/fakes/matrix/server.js";
import type { Message } from "grammy/types";

export interface Fakes {
  telegram?: FakeBotApi;
  slack?: FakeSlack;
  discord?: FakeDiscord;
  /** The homeserver, with the bot's account on it. */
  matrix?: { server: FakeHomeserver; userId: string; password: string };
  close(): Promise<void>;
}

export type FakeKind = "telegram" | "slack" | "discord" | "matrix";

export async function startFakes(which: Partial<Record<FakeKind, boolean>>): Promise<Fakes> {
  const telegram = which.telegram ? await FakeBotApi.start({ username: "baton_bench_bot" }) : undefined;
  const slack = which.slack ? await new FakeSlack().start() : undefined;
  const discord = which.discord ? await new FakeDiscord().start() : undefined;
  const homeserver = which.matrix ? await FakeHomeserver.start() : undefined;
  const matrix = homeserver && { server: homeserver, ...homeserver.register("baton", undefined, "Baton") };
  return {
    telegram,
    slack,
    discord,
    matrix,
    async close() {
      await telegram?.close();
      await slack?.stop();
      await discord?.stop();
      await homeserver?.stop();
    },
  };
}

export interface ConfigOptions {
  web?: boolean;
  maxLiveHosts?: number;
  /** agents.nice; unset: Baton's default. */
  agentsNice?: number | "idle";
  logLevel?: string;
  /** Who may use Baton (default: every Telegram user). */
  allow?: string[];
  /** rendering.* set over the bench's defaults. */
  rendering?: Record<string, unknown>;
}

/** Baton's config for the fakes that run: every Telegram user allowed, the demo agent, no usage line, the rest default. */
export function batonConfig(fakes: Fakes, options: ConfigOptions = {}): string {
  const platforms: Record<string, unknown> = {};
  if (options.web) platforms.web = { listen: "127.0.0.1:0" };
  if (fakes.telegram) platforms.telegram = { token: fakes.telegram.token, api_root: fakes.telegram.apiRoot };
  if (fakes.slack) platforms.slack = { bot_token: fakes.slack.options.botToken, app_token: fakes.slack.options.appToken, api_url: fakes.slack.apiUrl };
  if (fakes.discord) platforms.discord = { token: fakes.discord.token, api_url: fakes.discord.apiUrl };
  if (fakes.matrix) platforms.matrix = { homeserver: fakes.matrix.server.baseUrl, user_id: fakes.matrix.userId, password: fakes.matrix.password };
  return stringify({
    log: { level: options.logLevel ?? "info" },
    // The bench stops Baton with turns still running (the inbound suite's streams, the busy suite's
    // burning agents): they are cancelled at once, not given the 30 s a person's turn gets (the
    // bench's stop would kill Baton after 10 s of waiting, its agents left to notice).
    shutdown_grace: 0,
    agents: { default: "demo", ...(options.maxLiveHosts ? { max_live_hosts: options.maxLiveHosts } : {}), ...(options.agentsNice !== undefined ? { nice: options.agentsNice } : {}) },
    access: { allow: options.allow ?? ["telegram:*"] },
    workspaces: { default: process.cwd(), roots: [process.cwd()] },
    // The usage line is one more message at the end of every turn: the probes are sized to stay
    // under Telegram's pacing with an answer and its edit, and a quiet probe must send nothing.
    rendering: { show_usage: false, ...options.rendering },
    platforms,
  });
}

/** Telegram user ids of the bench's simulated people start here (chat id = user id in a private chat). */
const FIRST_BENCH_USER = 7_000_000;

/** A person in a private chat with the bot, writing through the fake. */
export function telegramUser(fake: FakeBotApi, index: number): { chatId: number; send(text: string): Message } {
  const person = user(FIRST_BENCH_USER + index, `bench${index}`);
  return { chatId: person.id, send: (text) => fake.userSends({ chat: privateChat(person), from: person, text }) };
}

type ApiCall = FakeBotApi["calls"][number];

/**
 * The fake's calls that put text in a chat (sendMessage / editMessageText), indexed by chat as they
 * arrive. Polling must stay cheap: the fake answers Baton from the bench's own event loop.
 */
export class TextCalls {
  private readonly byChat = new Map<number, ApiCall[]>();
  private seen = 0;

  constructor(private readonly fake: FakeBotApi) {}

  /** Text calls to one chat, in arrival order, those after `after` (monotonicMs) only. */
  to(chatId: number, after = -Infinity): ApiCall[] {
    const calls = this.fake.calls;
    for (; this.seen < calls.length; this.seen++) {
      const call = calls[this.seen];
      if (call.method !== "sendMessage" && call.method !== "editMessageText") continue;
      const chat = Number(call.params.chat_id);
      let list = this.byChat.get(chat);
      if (!list) this.byChat.set(chat, (list = []));
      list.push(call);
    }
    const list = this.byChat.get(chatId) ?? [];
    return after === -Infinity ? list : list.filter((c) => c.hrAt > after);
  }
}

// Shared pieces of the Telegram tests: a recording PlatformCore standing in for Baton's core, an
// adapter wired to the fake Bot API with fast pacing, a polling wait, and a shipped Baton on the fake.
import type { ActionOutcome, ActionPress, InboundMessage, PlatformCore } from "../../../src/platforms/contract.js";
import { telegramConfigSchema, type TelegramAdapterConfig } from "../../../src/platforms/telegram/config.js";
import { TelegramAdapter, type TelegramTuning } from "../../../src/platforms/telegram/index.js";
import { afterEach, expect } from "vitest";
import { FakeBotApi } from "../../fakes/telegram/fake-bot-api.js";
import { shippedConfig, startShippedBaton, type ShippedBaton } from "../../support/shipped-baton.js";
import { TELEGRAM_PACING } from "../../../src/platforms/telegram/adapter.js";

export interface LogLine {
  level: "debug" | "info" | "warn" | "error";
  obj: object | string;
  msg?: string;
}

/** Records what the adapter hands over; answers button presses for the users in `allowed`. */
export class RecordingCore implements PlatformCore {
  readonly messages: InboundMessage[] = [];
  readonly presses: ActionPress[] = [];
  readonly logs: LogLine[] = [];
  onMessage?: (message: InboundMessage) => Promise<void> | void;

  constructor(private readonly allowed: string[] = []) {}

  async handleMessage(message: InboundMessage): Promise<void> {
    this.messages.push(message);
    await this.onMessage?.(message);
  }

  async handleAction(press: ActionPress): Promise<ActionOutcome> {
    this.presses.push(press);
    if (!this.allowed.includes(press.user.id)) return { ok: false, text: `You are not allowed to answer this; ask the operator to add ${press.user.id}.` };
    return { ok: true, text: press.actionId.endsWith(":allow") ? "Allowed once" : "Rejected" };
  }

  commandList(): Array<{ name: string; description: string }> {
    return [
      { name: "help", description: "the commands, one line each" },
      { name: "status", description: "workspace, thread, agent" },
      { name: "Bad Name!", description: "not a valid Telegram command, left out" },
    ];
  }

  readonly log = {
    debug: (obj: object | string, msg?: string) => void this.logs.push({ level: "debug", obj, msg }),
    info: (obj: object | string, msg?: string) => void this.logs.push({ level: "info", obj, msg }),
    warn: (obj: object | string, msg?: string) => void this.logs.push({ level: "warn", obj, msg }),
    error: (obj: object | string, msg?: string) => void this.logs.push({ level: "error", obj, msg }),
  };

  logText(): string {
    return this.logs.map((line) => `${line.level} ${typeof line.obj === "string" ? line.obj : JSON.stringify(line.obj)} ${line.msg ?? ""}`).join("\n");
  }
}

/** Telegram's own pacing (the fake enforces the same limits), the poller's backoff scaled down. */
export const FAST_TUNING: TelegramTuning = {
  pacing: TELEGRAM_PACING,
  poller: { pollTimeoutSeconds: 1, initialBackoffMs: 50, maxBackoffMs: 400 },
};

export async function makeAdapter(
  fake: FakeBotApi,
  config: Partial<TelegramAdapterConfig> = {},
  tuning: Partial<TelegramTuning> = FAST_TUNING,
  name = "telegram",
): Promise<{ adapter: TelegramAdapter }> {
  const parsed = telegramConfigSchema.parse({ token: fake.token, api_root: fake.apiRoot, ...config });
  // The adapter keeps nothing in the data dir.
  return { adapter: new TelegramAdapter(name, parsed, { dataDir: "/nonexistent" }, tuning) };
}

export async function waitFor<T>(probe: () => T | undefined | false, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A shipped Baton's start beyond its access list: more config, and the folder it keeps (with what a test put there). */
export interface ShippedStart {
  config?: Record<string, unknown>;
  dir?: string;
}

/**
 * One shipped Baton (bin/baton.js) per test on a fake Bot API, with `access` as its access list;
 * after each test both are stopped and the last Baton must have logged no problem. `restart()`
 * starts it again on the same config file and data dir. Call at module level.
 */
export function shippedOnTelegram(prefix: string): {
  start(access: Record<string, unknown>, more?: ShippedStart): Promise<FakeBotApi>;
  restart(): Promise<ShippedBaton>;
  baton(): ShippedBaton;
} {
  let fake: FakeBotApi | undefined;
  let baton: ShippedBaton | undefined;
  let config = "";
  afterEach(async () => {
    const stopped = baton;
    baton = undefined;
    await stopped?.stop();
    await fake?.close();
    fake = undefined;
    if (stopped) expect(stopped.problems()).toEqual([]);
  });
  return {
    async start(access, more = {}) {
      const api = (fake = await FakeBotApi.start());
      config = shippedConfig({ ...more.config, access, platforms: { telegram: { token: api.token, api_root: api.apiRoot } } });
      baton = await startShippedBaton(config, more.dir === undefined ? { prefix } : { dir: more.dir });
      return api;
    },
    async restart() {
      const { dir } = baton!;
      await baton!.stop();
      baton = await startShippedBaton(config, { dir });
      return baton;
    },
    baton: () => baton!,
  };
}

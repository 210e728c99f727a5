// Shared setup for the Slack tests: a fake Slack, an adapter pointed at it, and a small recording
// core standing in for Baton's (it records what the adapter hands over and answers like the core).
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { ActionOutcome, ActionPress, InboundMessage, PlatformCore, PlatformLogger } from "../../../src/platforms/contract.js";
import { Intake } from "../../../src/core/conversation/intake.js";
import { createSlackAdapter, type SlackAdapter } from "../../../src/platforms/slack/index.js";
import { slackConfigSchema } from "../../../src/platforms/slack/config.js";
import { FakeSlack } from "../../fakes/slack/index.js";
import { testTempDir } from "../../support/temp.js";

const silentLog: PlatformLogger & { lines: string[] } = {
  lines: [],
  debug(obj, msg) {
    silentLog.lines.push(`${JSON.stringify(obj)} ${msg ?? ""}`);
  },
  info(obj, msg) {
    silentLog.lines.push(`${JSON.stringify(obj)} ${msg ?? ""}`);
  },
  warn(obj, msg) {
    silentLog.lines.push(`${JSON.stringify(obj)} ${msg ?? ""}`);
  },
  error(obj, msg) {
    silentLog.lines.push(`${JSON.stringify(obj)} ${msg ?? ""}`);
  },
};

export class RecordingCore implements PlatformCore {
  readonly messages: InboundMessage[] = [];
  readonly presses: ActionPress[] = [];
  log = silentLog;
  onMessage: (message: InboundMessage) => Promise<void> = async () => undefined;
  onAction: (press: ActionPress) => Promise<ActionOutcome> = async () => ({ ok: true, text: "ok" });

  /** The core's own intake: redeliveries dropped, a route's order kept while a lookup runs. */
  private readonly intake = new Intake(silentLog);

  handleMessage(message: InboundMessage): Promise<void> {
    return this.intake.run(message, async (settled) => {
      this.messages.push(settled);
      await this.onMessage(settled);
    });
  }

  async handleAction(press: ActionPress): Promise<ActionOutcome> {
    if (!this.intake.firstDelivery(press.route, press.eventId)) return { ok: true, text: "" };
    this.presses.push(press);
    return this.onAction(press);
  }

  commandList() {
    return [{ name: "status", description: "show status" }];
  }
}

export interface SlackTestBed {
  fake: FakeSlack;
  adapter: SlackAdapter;
  cacheDir: string;
  stop(): Promise<void>;
}

export async function startSlackTestBed(options: { config?: Record<string, unknown>; fake?: FakeSlack } = {}): Promise<SlackTestBed> {
  const fake = options.fake ?? (await new FakeSlack().start());
  const dataDir = testTempDir("baton-slack-");
  const cacheDir = join(dataDir, "cache");
  const config = slackConfigSchema.parse({
    bot_token: fake.options.botToken,
    app_token: fake.options.appToken,
    api_url: fake.apiUrl,
    ...options.config,
  });
  const adapter = createSlackAdapter("slack", config, { dataDir, cacheDir }, { retryConfig: { retries: 0 } });
  return {
    fake,
    adapter,
    cacheDir,
    async stop() {
      await adapter.stop();
      await fake.stop();
      await rm(dataDir, { recursive: true, force: true });
      // Whatever happened in the test, no token reached the log.
      const logged = silentLog.lines.join("\n");
      if (logged.includes(fake.options.botToken) || logged.includes(fake.options.appToken)) throw new Error("a Slack token was logged");
    },
  };
}

/** Polls until `check` returns a truthy value (tests wait on the fake, never on fixed sleeps). */
export async function eventually<T>(check: () => T | undefined | false | null, timeoutMs = 10_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

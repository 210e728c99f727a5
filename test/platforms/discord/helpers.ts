// Shared setup for the Discord tests: the fake Discord, an adapter pointed at it (for tests of the
// adapter alone), `baton start` connected to it (the end-to-end tests), and two people: alice
// (allowed) and mallory.
import { Intake } from "../../../src/core/conversation/intake.js";
import type { PlatformCore, PlatformLogger } from "../../../src/platforms/contract.js";
import { createDiscordAdapter, type DiscordAdapter } from "../../../src/platforms/discord/index.js";
import { discordConfigSchema, type DiscordAdapterConfig } from "../../../src/platforms/discord/config.js";
import { FakeDiscord, visibleText, type FakeDiscordOptions, type FakeMessage, type FakeUser } from "../../fakes/discord/index.js";
import { shippedConfig, startShippedBaton, type ShippedBaton } from "../../support/shipped-baton.js";

export { eventually } from "../slack/helpers.js";

export interface ShippedDiscordBed {
  fake: FakeDiscord;
  baton: ShippedBaton;
  alice: FakeUser;
  mallory: FakeUser;
  /** The bot's message in a channel or thread whose text, as Discord shows it, matches. */
  find(channelId: string, pattern: RegExp): FakeMessage | undefined;
  stop(): Promise<void>;
}

function discordConfig(fake: FakeDiscord, config: Record<string, unknown> = {}): DiscordAdapterConfig {
  return discordConfigSchema.parse({ token: fake.token, api_url: fake.apiUrl, ...config });
}

export function discordAdapter(fake: FakeDiscord, config: Record<string, unknown> = {}): DiscordAdapter {
  return createDiscordAdapter("discord", discordConfig(fake, config), { dataDir: "/nonexistent" });
}

/** The fake Discord with `baton start` (bin/baton.js, the shipped bundle) connected to it; alice allowed. */
export async function startShippedDiscordBed(
  options: {
    fake?: FakeDiscordOptions;
    config?: (fake: FakeDiscord) => Record<string, unknown>;
    /** The config's access section (default: alice allowed); made once the fake has its people. */
    access?: (fake: FakeDiscord, people: { alice: FakeUser; mallory: FakeUser }) => Record<string, unknown>;
    env?: NodeJS.ProcessEnv;
    /** Other sections of Baton's config (agents: …), over the shipped tests' defaults. */
    baton?: Record<string, unknown>;
  } = {},
): Promise<ShippedDiscordBed> {
  const fake = await new FakeDiscord(options.fake).start();
  const alice = fake.addUser("alice");
  const mallory = fake.addUser("mallory");
  const discord = { token: fake.token, api_url: fake.apiUrl, ...options.config?.(fake) };
  let baton: ShippedBaton;
  try {
    const access = options.access?.(fake, { alice, mallory }) ?? { allow: [`discord:${alice.id}`] };
    baton = await startShippedBaton(shippedConfig({ ...options.baton, access, platforms: { discord } }), { env: options.env, prefix: "baton-discord-e2e-" });
  } catch (error) {
    await fake.stop();
    throw error;
  }
  return {
    fake,
    baton,
    alice,
    mallory,
    find: (channelId, pattern) => fake.botMessages(channelId).find((m) => pattern.test(visibleText(m.content))),
    async stop() {
      await baton.stop();
      await fake.stop();
    },
  };
}

/** A core that records what an adapter hands it (for tests of the adapter alone). */
export function recordingCore(): PlatformCore & { messages: string[]; logged: string[] } {
  const logged: string[] = [];
  const write = (obj: object | string, msg?: string) => void logged.push(`${typeof obj === "string" ? obj : JSON.stringify(obj)} ${msg ?? ""}`);
  const log: PlatformLogger = { debug: () => undefined, info: write, warn: write, error: write };
  const messages: string[] = [];
  // The core's own intake: redeliveries dropped, a channel's order kept while its thread is looked up.
  const intake = new Intake(log);
  return {
    messages,
    logged,
    log,
    handleMessage(message) {
      return intake.run(message, async (settled) => void messages.push(settled.text));
    },
    async handleAction() {
      return { ok: true, text: "ok" };
    },
    commandList: () => [{ name: "status", description: "show status" }],
  };
}

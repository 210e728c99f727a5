// Shared pieces of the Matrix tests: a fake homeserver with the bot's, Alice's and Mallory's
// accounts and a data dir; the adapter on it; a recording PlatformCore for tests of the adapter
// alone (what it hands over, one call at a time); a polling wait.
import { expect } from "vitest";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Intake } from "../../../src/core/conversation/intake.js";
import type { ActionOutcome, ActionPress, InboundMessage, PlatformCore, TypingStart } from "../../../src/platforms/contract.js";
import { matrixConfigSchema } from "../../../src/platforms/matrix/config.js";
import { MatrixAdapter } from "../../../src/platforms/matrix/index.js";
import type { MatrixTuning } from "../../../src/platforms/matrix/adapter.js";
import { FakeHomeserver } from "../../fakes/matrix/server.js";
import { shippedConfig, startShippedBaton, type ShippedBaton } from "../../support/shipped-baton.js";

/** Generous: the machine may be busy with other tests. */
const WAIT_MS = 40_000;

export interface MatrixWorld {
  fake: FakeHomeserver;
  dataDir: string;
  bot: string;
  alice: string;
  mallory: string;
  /** An adapter for the bot's account, on this data dir (the same device every time); `settings`: more config keys. */
  adapter(tuning?: MatrixTuning, settings?: Record<string, unknown>): MatrixAdapter;
  close(): Promise<void>;
}

export async function startWorld(): Promise<MatrixWorld> {
  const fake = await FakeHomeserver.start();
  const dataDir = mkdtempSync(join(tmpdir(), "baton-matrix-"));
  const { password } = fake.register("baton", undefined, "Baton");
  const bot = `@baton:${fake.serverName}`;
  const config = (settings: Record<string, unknown> = {}) => matrixConfigSchema.parse({ homeserver: fake.baseUrl, user_id: bot, password, ...settings });
  return {
    fake,
    dataDir,
    bot,
    alice: fake.register("alice", undefined, "Alice").userId,
    mallory: fake.register("mallory", undefined, "Mallory").userId,
    adapter: (tuning, settings) => new MatrixAdapter("matrix", config(settings), { dataDir }, tuning),
    async close() {
      await fake.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * `baton start` (bin/baton.js, the shipped bundle) with Matrix on the bot's account, `allow` the
 * users let in (`settings`: more keys of the Matrix config, `access`: more keys of access, `baton`: other
 * sections of Baton's config); `dir` restarts the Baton that ran there.
 * Gives the bot's device id with it.
 */
export async function startShippedMatrixBaton(
  world: MatrixWorld,
  options: { allow: string[]; dir?: string; settings?: Record<string, unknown>; access?: Record<string, unknown>; baton?: Record<string, unknown> },
): Promise<{ baton: ShippedBaton; deviceId: string }> {
  const password = world.fake.state.accounts.get(world.bot)!.password;
  const matrix = { homeserver: world.fake.baseUrl, user_id: world.bot, password: "${MATRIX_PASSWORD}", ...options.settings };
  const baton = await startShippedBaton(shippedConfig({ ...options.baton, access: { ...options.access, allow: options.allow }, platforms: { matrix } }), {
    dir: options.dir,
    prefix: "baton-matrix-e2e-",
    env: { MATRIX_PASSWORD: password },
  });
  const session = JSON.parse(readFileSync(join(baton.dir, "data", "matrix", "matrix", "session.json"), "utf8")) as { device_id: string };
  return { baton, deviceId: session.device_id };
}

/** An afterEach's end: the shipped Baton stopped, then the fake; the Baton logged nothing at error or above. */
export async function stopShippedMatrix(world: MatrixWorld, baton: ShippedBaton | undefined): Promise<void> {
  await baton?.stop();
  await world.close();
  expect(baton?.problems() ?? []).toEqual([]);
}

/** Records what the adapter hands over; allows the users in `allowed` (presses and invites). */
export class RecordingCore implements PlatformCore {
  readonly messages: InboundMessage[] = [];
  readonly presses: ActionPress[] = [];
  readonly typings: TypingStart[] = [];
  readonly warnings: string[] = [];

  constructor(private readonly allowed: string[]) {}

  /** The core's own intake: a redelivered event (the SDK emits some twice) is dropped. */
  private readonly intake = new Intake({ debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined });

  handleMessage(message: InboundMessage): Promise<void> {
    return this.intake.run(message, async (settled) => void this.messages.push(settled));
  }

  handleTyping(typing: TypingStart): void {
    this.typings.push(typing);
  }

  async handleAction(press: ActionPress): Promise<ActionOutcome> {
    if (!this.intake.firstDelivery(press.route, press.eventId)) return { ok: true, text: "" };
    this.presses.push(press);
    return this.isAllowed(press.user.id) ? { ok: true, text: "Allowed once" } : { ok: false, text: `You are not allowed to answer this (${press.user.id}).` };
  }

  isAllowed(userId: string): boolean {
    return this.allowed.includes(userId);
  }

  commandList(): Array<{ name: string; description: string }> {
    return [];
  }

  readonly log = {
    debug: () => undefined,
    info: () => undefined,
    warn: (obj: object | string, msg?: string) => void this.warnings.push(`${msg ?? ""} ${JSON.stringify(obj)}`),
    error: (obj: object | string, msg?: string) => void this.warnings.push(`${msg ?? ""} ${JSON.stringify(obj)}`),
  };
}

export async function until<T>(probe: () => T | undefined | false, what: string, timeoutMs = WAIT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

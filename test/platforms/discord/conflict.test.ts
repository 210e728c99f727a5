// A second process on the same bot token: Discord lets both connect and sends both every event.
// Baton notices where Discord tells it (an interaction already acknowledged, a thread already
// started from the message) and says so in its log, and only one of the two answers.
import { afterEach, describe, expect, test } from "vitest";
import { discordAdapter, eventually, recordingCore } from "./helpers.js";
import { FakeDiscord } from "../../fakes/discord/index.js";
import type { DiscordAdapter } from "../../../src/platforms/discord/index.js";

const CONFLICT = /another process is answering as this Discord bot .* a second Baton on the same token\? Stop one, or give each its own application/;

const reported = (cores: Array<{ logged: string[] }>) => cores.some((core) => core.logged.some((line) => CONFLICT.test(line)));

describe("two Batons on one Discord token", () => {
  let fake: FakeDiscord;
  const adapters: DiscordAdapter[] = [];
  afterEach(async () => {
    for (const adapter of adapters.splice(0)) await adapter.stop();
    await fake?.stop();
  });

  async function twoBatons() {
    fake = await new FakeDiscord().start();
    const cores = [recordingCore(), recordingCore()];
    for (const core of cores) {
      const adapter = discordAdapter(fake);
      adapters.push(adapter);
      await adapter.start(core);
    }
    await fake.gateway.waitForLive(2);
    return cores;
  }

  test("a slash command: one acknowledges it, the other is refused (40060), reports the conflict and does nothing", async () => {
    const cores = await twoBatons();
    const alice = fake.addUser("alice");
    fake.slashCommand(alice, fake.general, "status");
    await eventually(() => reported(cores) && cores.flatMap((core) => core.messages).length === 1, 10_000, "the report and one handover");
    await new Promise((resolve) => setTimeout(resolve, 200));
    const callbacks = fake.callsTo("POST /interactions/:id/:token/callback");
    expect(callbacks.map((c) => c.status).sort()).toEqual([204, 400]);
    expect(callbacks.find((c) => c.status === 400)!.code).toBe(40060);
    expect(cores.flatMap((core) => core.messages)).toEqual(["/status"]);
  });

  test("a mention: one starts the thread, the other is told it exists (160004), reports the conflict and does nothing", async () => {
    const cores = await twoBatons();
    const alice = fake.addUser("alice");
    fake.say(alice, fake.general, "look at this", { mention: true });
    await eventually(() => reported(cores) && cores.flatMap((core) => core.messages).length === 1, 10_000, "the report and one handover");
    await new Promise((resolve) => setTimeout(resolve, 200));
    const starts = fake.callsTo("POST /channels/:channel/messages/:message/threads");
    expect(starts.map((c) => c.code ?? c.status).sort()).toEqual([160004, 201]);
    expect(cores.flatMap((core) => core.messages)).toEqual([`<@${fake.bot.id}> look at this`]);
  });
});

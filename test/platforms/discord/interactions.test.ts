// The interaction desk on its own, against the fake's interaction routes: a deferred command reply
// that nothing filled in is removed, not left "thinking…" for 15 minutes; an answer fills it in once.
import { afterEach, describe, expect, test } from "vitest";
import { REST } from "discord.js";
import { InteractionDesk } from "../../../src/platforms/discord/interactions.js";
import { renderMessage } from "../../../src/platforms/discord/render.js";
import { FakeDiscord } from "../../fakes/discord/index.js";
import { eventually } from "./helpers.js";

describe("Discord interaction desk", () => {
  let fake: FakeDiscord;
  let desk: InteractionDesk | undefined;
  afterEach(async () => {
    desk?.close();
    await fake?.stop();
  });

  function open(unansweredMs: number) {
    const rest = new REST({ api: fake.apiUrl, retries: 0 }).setToken(fake.token);
    const errors: string[] = [];
    desk = new InteractionDesk(
      rest,
      () => fake.world.applicationId,
      (error) => void errors.push(String(error)),
      unansweredMs,
    );
    return { desk, errors };
  }

  test("a deferred reply nothing answered is deleted after the grace time", async () => {
    fake = await new FakeDiscord().start();
    const { desk } = open(200);
    const alice = fake.addUser("alice");
    const command = fake.slashCommand(alice, fake.general, "baton", { command: "agent", args: "compact" });
    await desk.deferCommand(command.id, command.token, "discord:1", alice.id);
    expect(command.original?.flags).toBe((1 << 6) | (1 << 7));
    // The agent's own output is not the command's answer.
    expect(await desk.answer("discord:1", "text", renderMessage({ text: "agent output" }))).toBeUndefined();
    await eventually(() => command.original?.deleted, 5000, "the deferred reply removed");
    expect(await desk.answer("discord:1", "notice", renderMessage({ text: "too late" }))).toBeUndefined();
  });

  test("the first notice fills the reply in; later edits of it go through the interaction's webhook", async () => {
    fake = await new FakeDiscord().start();
    const { desk, errors } = open(60_000);
    const alice = fake.addUser("alice");
    const command = fake.slashCommand(alice, fake.general, "status");
    await desk.deferCommand(command.id, command.token, "discord:1", alice.id);
    const ref = await desk.answer("discord:1", "notice", renderMessage({ text: "**all** quiet" }));
    expect(ref?.id).toBe(command.original!.id);
    expect(await desk.answer("discord:1", "notice", renderMessage({ text: "second" }))).toBeUndefined();
    expect(await desk.editAnswer(ref!.id, renderMessage({ text: "still quiet" }))).toBe(true);
    expect(command.original!.history).toEqual(["", "**all** quiet", "still quiet"]);
    expect(await desk.editAnswer("123", renderMessage({ text: "x" }))).toBe(false);
    expect(errors).toEqual([]);
  });
});

// Slash commands end to end, through `baton start` (bin/baton.js, the shipped bundle): registered on
// start (per server when `guilds` is set, else global), acknowledged at once with a deferred reply
// only the user sees, then answered by editing it.
import { afterEach, describe, expect, test } from "vitest";
import { eventually, startShippedDiscordBed, type ShippedDiscordBed } from "./helpers.js";
import { MessageFlag, type FakeInteraction } from "../../fakes/discord/index.js";

const TIMEOUT_MS = 20_000;
const COMMAND_NAMES = ["baton", "status", "new", "stop", "pickup", "switch"];

let bed: ShippedDiscordBed | undefined;
afterEach(async () => {
  const stopped = bed;
  bed = undefined;
  await stopped?.stop();
  expect(stopped?.baton.problems() ?? []).toEqual([]);
});

const answered = (interaction: FakeInteraction, pattern: RegExp) =>
  eventually(() => interaction.original && interaction.original.history.length > 1 && pattern.test(interaction.original.content), TIMEOUT_MS, `an answer matching ${pattern}`);

describe("Discord slash commands", () => {
  test("without `guilds` the commands are registered globally", async () => {
    bed = await startShippedDiscordBed();
    expect(bed.fake.rest.commands.get("global")?.map((c) => c.name)).toEqual(COMMAND_NAMES);
    expect([...bed.fake.rest.commands.keys()]).toEqual(["global"]);
  });

  test("per server with `guilds`; /status deferred at once (type 5, only its user sees it) then answered by PATCH @original", async () => {
    bed = await startShippedDiscordBed({ config: (fake) => ({ guilds: [fake.guild.id] }) });
    const { fake, alice } = bed;
    expect(fake.rest.commands.get(fake.guild.id)?.map((c) => c.name)).toEqual(COMMAND_NAMES);
    expect(fake.rest.commands.has("global")).toBe(false);

    const status = fake.slashCommand(alice, fake.general, "status");
    await answered(status, /No thread here yet/);
    expect(status.acknowledgedWith).toBe(5);
    expect(status.acknowledgedAt! - status.createdAt).toBeLessThan(3000);
    expect(status.original!.flags & MessageFlag.Loading).toBe(0);
    expect(status.original!.visibleTo).toBe(alice.id);
    expect(fake.callsTo("PATCH /webhooks/:app/:token/messages/@original")).toHaveLength(1);
    // Nothing of this reached the channel itself.
    expect(fake.botMessages(fake.general.id)).toEqual([]);
  });

  test("/baton <command> [args] and /pickup code: mean the chat commands", async () => {
    bed = await startShippedDiscordBed();
    const { fake, alice } = bed;
    await answered(fake.slashCommand(alice, fake.general, "baton", { command: "pickup", args: "ZZZZ" }), /Handover code is invalid or expired/);
    await answered(fake.slashCommand(alice, fake.general, "pickup", { code: "ZZZZ" }), /Handover code is invalid or expired/);
    await answered(fake.slashCommand(alice, fake.general, "baton", { command: "help" }), /\/pickup/);
  });

  test("/new and /switch agent: act on the conversation they are typed in", async () => {
    bed = await startShippedDiscordBed();
    const { fake, alice } = bed;
    const dm = fake.dmChannel(alice);
    fake.dm(alice, "hello");
    await eventually(() => bed!.find(dm.id, /you said "hello"/), TIMEOUT_MS, "the first thread");
    await answered(fake.slashCommand(alice, dm, "new"), /New thread/);
    await answered(fake.slashCommand(alice, dm, "switch", { agent: "nosuchagent" }), /nosuchagent/);
  });

  test("a stranger's command gets an ephemeral refusal naming their id", async () => {
    bed = await startShippedDiscordBed();
    const { fake, mallory } = bed;
    const refused = fake.slashCommand(mallory, fake.general, "status");
    await answered(refused, new RegExp(`not allowed.*discord:${mallory.id}`));
    expect(refused.original!.visibleTo).toBe(mallory.id);
    expect(fake.botMessages(fake.general.id)).toEqual([]);
  });
});

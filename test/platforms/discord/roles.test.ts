// Discord roles in access lists, over the wire (`baton start` as shipped, the fake Discord whose
// MESSAGE_CREATE carries the member's roles, the demo agent): a member with the role gets in,
// someone without it is refused with their id; the role taken away in Discord → refused once
// access.group_ttl has passed. A DM is in no server, so no role counts there; when Discord cannot
// be asked, the message is refused with the reason in the log.
import { afterEach, describe, expect, test } from "vitest";
import { FakeDiscord } from "../../fakes/discord/index.js";
import { discordAdapter, eventually, recordingCore, startShippedDiscordBed, type ShippedDiscordBed } from "./helpers.js";

const WAIT_MS = 20_000;
let role = "";

let bed: ShippedDiscordBed | undefined;
afterEach(async () => {
  const stopped = bed;
  bed = undefined;
  if (!stopped) return;
  await stopped.stop();
  expect(stopped.baton.problems()).toEqual([]);
});

async function boot(): Promise<ShippedDiscordBed> {
  bed = await startShippedDiscordBed({
    config: () => ({ threads: "off" }),
    access: (fake) => {
      role = fake.newRoleId();
      return { allow: [`discord:role:${role}`], roles: { admin: [] }, group_ttl: "1s" };
    },
  });
  return bed;
}

describe("discord: roles in access lists", { timeout: 90_000 }, () => {
  test("a member with the role gets in, one without is refused with their id, a removed role after the TTL", async () => {
    const { fake, alice, mallory, find } = await boot();
    fake.setRoles(alice, [role]);
    fake.say(alice, fake.general, "hello", { mention: true });
    await eventually(() => find(fake.general.id, /you said "hello"/), WAIT_MS, "Alice's answer");
    fake.say(mallory, fake.general, "let me in", { mention: true });
    await eventually(() => find(fake.general.id, new RegExp(`not allowed to use this bot\\. Ask the operator to add discord:${mallory.id} to access\\.allow`)), WAIT_MS, "Mallory's refusal");
    // The roles came with the messages: Discord was not asked.
    expect(fake.callsTo("GET /guilds/:guild/members/:user")).toEqual([]);

    fake.setRoles(alice, []);
    fake.setRoles(mallory, [role]);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    fake.say(alice, fake.general, "still here?", { mention: true });
    await eventually(() => find(fake.general.id, new RegExp(`add discord:${alice.id} to access\\.allow`)), WAIT_MS, "Alice's refusal");
    fake.say(mallory, fake.general, "now me", { mention: true });
    await eventually(() => find(fake.general.id, /you said "(\[\w+\] )?now me"/), WAIT_MS, "Mallory's answer");
    expect(find(fake.general.id, /still here/)).toBeUndefined();
  });

  test("a DM counts no role; Discord failing to say refuses, with the reason logged", async () => {
    const { fake, alice, find } = await boot();
    fake.setRoles(alice, [role]);
    fake.dm(alice, "hello");
    const dm = fake.dmChannel(alice).id;
    await eventually(() => find(dm, new RegExp(`add discord:${alice.id} to access\\.allow`)), WAIT_MS, "the refusal in the DM");
    expect(find(dm, /you said/)).toBeUndefined();

    await new Promise((resolve) => setTimeout(resolve, 1500));
    fake.failNext("GET /channels/:channel", 500, 0, "500: Internal Server Error");
    fake.dm(alice, "again");
    await eventually(() => bed!.baton.log().find((line) => /could not look up whether the user is in a group/.test(line.msg ?? "")), WAIT_MS, "the logged failure");
    const logged = bed!.baton.log().find((line) => /could not look up whether the user is in a group/.test(line.msg ?? ""))!;
    expect(logged).toMatchObject({ principal: `discord:role:${role}`, user: `discord:${alice.id}`, level: 40 });
    expect(String(logged.reason)).toMatch(/500/);
    expect(find(dm, /you said/)).toBeUndefined();
  });
});

describe("discord: a role for a user known only by id (a schedule's maker)", { timeout: 30_000 }, () => {
  test("is read from the member in the route's server; a DM has none; the event's roles need no call", async () => {
    const fake = await new FakeDiscord().start();
    const adapter = discordAdapter(fake);
    try {
      await adapter.start(recordingCore());
      const [alice, bob] = [fake.addUser("alice"), fake.addUser("bob")];
      const role = fake.newRoleId();
      fake.setRoles(alice, [role]);
      const route = `discord:${fake.general.id}`;
      expect(await adapter.memberOf(`discord:role:${role}`, { id: `discord:${alice.id}` }, route)).toBe(true);
      expect(await adapter.memberOf(`discord:role:${role}`, { id: `discord:${bob.id}` }, route)).toBe(false);
      expect(fake.callsTo("GET /guilds/:guild/members/:user").map((c) => c.params.user)).toEqual([alice.id, bob.id]);
      expect(await adapter.memberOf(`discord:role:${role}`, { id: `discord:${alice.id}` }, `discord:${fake.dmChannel(alice).id}`)).toBe(false);
      expect(await adapter.memberOf(`discord:role:${role}`, { id: `discord:${bob.id}`, roles: [role] }, route)).toBe(true);
      expect(fake.callsTo("GET /guilds/:guild/members/:user")).toHaveLength(2);
      // Another kind of principal is not Discord's to answer.
      expect(await adapter.memberOf("slack:group:S0DEVS", { id: `discord:${alice.id}`, roles: [role] }, route)).toBe(false);
    } finally {
      await adapter.stop();
      await fake.stop();
    }
  });
});

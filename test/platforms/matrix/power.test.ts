// Matrix power levels in access lists, over the wire (`baton start` as shipped, the fake homeserver's
// m.room.power_levels state, the demo agent): in a room, someone at power 50 or more gets in, someone
// below is refused with their id; a level lowered in the room → refused once access.group_ttl has
// passed; when the homeserver will not say, the message is refused with the reason in the log.
import { afterEach, beforeEach, expect, it } from "vitest";
import { createRoom, join, sendEvent, setPowerLevel } from "../../fakes/matrix/rooms.js";
import type { Room } from "../../fakes/matrix/state.js";
import type { ShippedBaton } from "../../support/shipped-baton.js";
import { startShippedMatrixBaton, startWorld, stopShippedMatrix, until, type MatrixWorld } from "./helpers.js";

let world: MatrixWorld;
let baton: ShippedBaton | undefined;

beforeEach(async () => {
  world = await startWorld();
});
afterEach(async () => {
  const stopped = baton;
  baton = undefined;
  await stopShippedMatrix(world, stopped);
});

/** Carol (an admin by id) invites the bot into a room with Alice (power 50) and Mallory (power 0); power 50 is let in. */
async function teamRoom(): Promise<{ room: Room; carol: string }> {
  const carol = world.fake.register("carol", undefined, "Carol").userId;
  const started = await startShippedMatrixBaton(world, { allow: ["matrix:power:50"], access: { roles: { admin: [`matrix:${carol}`] }, group_ttl: "1s" } });
  baton = started.baton;
  const room = createRoom(world.fake.state, carol, { invite: [world.bot, world.alice, world.mallory] });
  join(world.fake.state, room, world.alice);
  join(world.fake.state, room, world.mallory);
  setPowerLevel(world.fake.state, room, carol, world.alice, 50);
  await until(() => world.fake.state.membership(room, world.bot) === "join", "the bot joining on Carol's invite");
  return { room, carol };
}

const say = (room: Room, sender: string, body: string) => sendEvent(world.fake.state, room, sender, "m.room.message", { msgtype: "m.text", body: `Baton: ${body}` });
const botSaid = (room: Room, pattern: RegExp) => room.timeline.some((s) => s.event.sender === world.bot && s.event.type === "m.room.message" && pattern.test(String(s.event.content.body)));
const escaped = (id: string) => id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

it("lets power 50 in, refuses a lower level with the user's id, and refuses a lowered level after the TTL", async () => {
  const { room, carol } = await teamRoom();
  say(room, world.alice, "hello");
  await until(() => botSaid(room, /you said "hello"/), "Alice's answer");
  say(room, world.mallory, "let me in");
  await until(() => botSaid(room, new RegExp(`not allowed to use this bot\\. Ask the operator to add .?matrix:${escaped(world.mallory)}.? to access\\.allow`)), "Mallory's refusal");

  setPowerLevel(world.fake.state, room, carol, world.alice, 0);
  setPowerLevel(world.fake.state, room, carol, world.mallory, 100);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  say(room, world.alice, "still here?");
  await until(() => botSaid(room, new RegExp(`add .?matrix:${escaped(world.alice)}.? to access\\.allow`)), "Alice's refusal");
  say(room, world.mallory, "now me");
  await until(() => botSaid(room, /you said "(\[\w+\] )?now me"/), "Mallory's answer");
  expect(botSaid(room, /still here/)).toBe(false);
}, 90_000);

it("refuses when the homeserver will not give the power levels, with the reason in the log", async () => {
  const { room } = await teamRoom();
  world.fake.failNext({ method: "GET", path: /\/state\/m\.room\.power_levels/ }, { status: 403, errcode: "M_FORBIDDEN", error: "You don't have permission to view this state" });
  say(room, world.alice, "hello");
  await until(() => botSaid(room, new RegExp(`add .?matrix:${escaped(world.alice)}.? to access\\.allow`)), "the refusal");
  const logged = baton!.log().find((line) => /could not look up whether the user is in a group/.test(line.msg ?? ""));
  expect(logged).toMatchObject({ principal: "matrix:power:50", user: `matrix:${world.alice}`, level: 40 });
  expect(String(logged!.reason)).toMatch(/M_FORBIDDEN|permission/);
  expect(botSaid(room, /you said/)).toBe(false);
}, 90_000);

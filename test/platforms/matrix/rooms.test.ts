// Rooms through Baton with the demo agent (the contract suite covers DMs, group addressing,
// approvals by reaction, 429s): a thread is its own conversation and the answer stays in it; an
// approval in a room is answered by a numbered reply as well as by reaction; invites follow
// access.allow through the real core. Users talk over plain HTTP to the fake (unencrypted rooms);
// e2e.test.ts covers E2EE. Baton runs as `baton start` (bin/baton.js, the shipped bundle).
import { afterEach, beforeEach, expect, it } from "vitest";
import { createRoom, join as joinRoom, sendEvent } from "../../fakes/matrix/rooms.js";
import type { Room } from "../../fakes/matrix/state.js";
import { seenMessages } from "../../fakes/matrix/view.js";
import type { ShippedBaton } from "../../support/shipped-baton.js";
import { startShippedMatrixBaton, startWorld, stopShippedMatrix, until, type MatrixWorld } from "./helpers.js";

/** Each test starts Baton, a bot device with its crypto and demo agents: slow on a busy machine. */
const SLOW_MS = 90_000;
let world: MatrixWorld;
let baton: ShippedBaton | undefined;
let room: Room;

beforeEach(async () => {
  world = await startWorld();
  const { fake, alice, mallory, bot } = world;
  room = createRoom(fake.state, alice, { invite: [bot, mallory], name: "team" });
  for (const user of [bot, mallory]) joinRoom(fake.state, room, user);
  ({ baton } = await startShippedMatrixBaton(world, { allow: [`matrix:${alice}`] }));
}, SLOW_MS);
afterEach(async () => {
  const stopped = baton;
  baton = undefined;
  await stopShippedMatrix(world, stopped);
}, SLOW_MS);

const say = (body: string, extra: Record<string, unknown> = {}) => sendEvent(world.fake.state, room, world.alice, "m.room.message", { msgtype: "m.text", body, ...extra });
const answered = (pattern: RegExp) => until(() => seenMessages(room, world.bot).find((m) => pattern.test(m.text)), `${pattern}`);

it(
  "a message in a thread is answered in that thread; the thread is its own conversation, and follow-ups there need no mention",
  async () => {
    say("@baton hello in the room");
    const inRoom = await answered(/you said "hello in the room"/);
    expect(inRoom.threadRoot).toBeUndefined();
    const root = say("thread starter");
    const inThread = { "m.relates_to": { rel_type: "m.thread", event_id: root.event_id, is_falling_back: true, "m.in_reply_to": { event_id: root.event_id } } };
    say("@baton in the thread", inThread);
    const reply = await answered(/you said "in the thread"/);
    expect(reply.threadRoot).toBe(root.event_id);
    // A new conversation: turn 1 of its own session, not turn 2 of the room's.
    expect(reply.text).toMatch(/^Turn 1 of session/);
    say("and a follow-up", inThread);
    expect((await answered(/you said "and a follow-up"/)).threadRoot).toBe(root.event_id);
  },
  SLOW_MS,
);

it(
  "an approval in a room is answered by its number as well; the decision edits the request",
  async () => {
    say("@baton demo:permission");
    const request = await answered(/Permission needed/);
    await until(() => seenMessages(room, world.bot).find((m) => m.eventId === request.eventId)!.reactions.length === 3, "the reaction choices");
    say("@baton 2");
    await answered(/Permission answer: allow-always/);
    const decision = () => seenMessages(room, world.bot).find((m) => m.eventId === request.eventId)!;
    // The request's edit and the agent's answer travel separately; either may land first.
    await until(() => /— by Alice/.test(decision().text), "the request edited with the decision");
    const decided = decision();
    expect(decided.text).toMatch(/Always allow — by Alice/);
    expect(decided.text).not.toMatch(/React to answer/);
  },
  SLOW_MS,
);

it(
  "invites through Baton's access list: Alice's is joined, Mallory's declined",
  async () => {
    const { fake, alice, mallory, bot } = world;
    const fromAlice = createRoom(fake.state, alice, { invite: [bot], is_direct: true });
    const fromMallory = createRoom(fake.state, mallory, { invite: [bot], is_direct: true });
    await until(() => fake.state.membership(fromAlice, bot) === "join" && fake.state.membership(fromMallory, bot) === "leave", "both invites answered");
  },
  SLOW_MS,
);

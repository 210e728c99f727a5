// Typing as a head start on Matrix: when an allowed person starts typing (the room's m.typing, as
// Element sends it) where the agent idled out, `baton start` (the shipped bundle) resumes that
// conversation's agent in the background, so the message that follows finds it live. A stranger's
// typing starts nothing; nor does the bot's own "typing…". Users talk over plain HTTP to the fake.
import { afterEach, beforeEach, expect, it } from "vitest";
import { createRoom, join as joinRoom, sendEvent } from "../../fakes/matrix/rooms.js";
import type { Room } from "../../fakes/matrix/state.js";
import { seenMessages } from "../../fakes/matrix/view.js";
import type { ShippedBaton } from "../../support/shipped-baton.js";
import { startShippedMatrixBaton, startWorld, stopShippedMatrix, until, type MatrixWorld } from "./helpers.js";

/** Each test starts Baton, a bot device with its crypto and demo agents: slow on a busy machine. */
const SLOW_MS = 90_000;
/** agents.idle_shutdown here: the conversation's agent idles out quickly. */
const IDLE_MS = 1_000;
/** How long Element says a person types for, per notice. */
const TYPING_TIMEOUT_MS = 30_000;

let world: MatrixWorld;
let baton: ShippedBaton | undefined;

beforeEach(async () => {
  world = await startWorld();
  ({ baton } = await startShippedMatrixBaton(world, { allow: [`matrix:${world.alice}`], baton: { agents: { idle_shutdown: IDLE_MS } } }));
}, SLOW_MS);
afterEach(async () => {
  const stopped = baton;
  baton = undefined;
  await stopShippedMatrix(world, stopped);
}, SLOW_MS);

const say = (room: Room, user: string, body: string) => sendEvent(world.fake.state, room, user, "m.room.message", { msgtype: "m.text", body });
const typing = (room: Room, user: string, on = true) => world.fake.state.setTyping(room, user, on, TYPING_TIMEOUT_MS);
const answered = (room: Room, pattern: RegExp) => until(() => seenMessages(room, world.bot).find((m) => pattern.test(m.text)), `${pattern}`);
const starts = () => baton!.log().filter((l) => l.msg === "agent host started");
const idledOut = (thread: unknown) => until(() => baton!.log().find((l) => l.msg === "idle agent host shut down" && l.thread === thread), "the idle-out");

it(
  "typing in a DM whose agent idled out resumes it before the message arrives; the message uses that host",
  async () => {
    const { fake, alice, bot } = world;
    const dm = createRoom(fake.state, alice, { invite: [bot], is_direct: true });
    joinRoom(fake.state, dm, bot);
    say(dm, alice, "hello");
    await answered(dm, /^Turn 1 of session/);
    expect(starts()).toHaveLength(1);
    const thread = starts()[0].thread;
    await idledOut(thread);

    typing(dm, alice);
    const resumed = await until(() => starts()[1], "the agent started on typing");
    expect(resumed).toMatchObject({ thread, how: expect.stringMatching(/^(resume|load)$/) });
    expect(baton!.log().filter((l) => l.msg?.startsWith("someone is typing"))).toEqual([expect.objectContaining({ thread })]);
    // No message yet: the agent was started by the typing alone.
    expect(seenMessages(dm, bot).some((m) => /^Turn 2/.test(m.text))).toBe(false);

    typing(dm, alice, false);
    say(dm, alice, "back again");
    await answered(dm, /^Turn 2 of session .*: you said "back again"$/);
    expect(starts()).toHaveLength(2);
  },
  SLOW_MS,
);

it(
  "in a room, a stranger's typing starts nothing and neither does the bot's own; an allowed person's does",
  async () => {
    const { fake, alice, mallory, bot } = world;
    const room = createRoom(fake.state, alice, { invite: [bot, mallory], name: "team" });
    for (const user of [bot, mallory]) joinRoom(fake.state, room, user);
    say(room, alice, "@baton hello");
    await answered(room, /^Turn 1 of session/);
    const thread = starts()[0].thread;
    await idledOut(thread);

    typing(room, mallory);
    // The bot's own typing notice comes back in its sync like anyone's.
    typing(room, bot);
    await new Promise((r) => setTimeout(r, IDLE_MS));
    expect(starts()).toHaveLength(1);
    typing(room, alice);
    expect(await until(() => starts()[1], "the agent started on typing")).toMatchObject({ thread });
  },
  SLOW_MS,
);

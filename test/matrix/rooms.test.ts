// Rooms through Baton with the demo agent: group addressing, threads, approvals by reaction, 429s.
// The users here talk over plain HTTP to the fake (unencrypted rooms); e2e.test.ts covers E2EE.
import { afterEach, beforeEach, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FakeHomeserver } from "../fakes/matrix/server.js";
import { createRoom, join as joinRoom, sendEvent } from "../fakes/matrix/rooms.js";
import type { Room } from "../fakes/matrix/state.js";
import { MatrixAdapter } from "../../src/platforms/matrix/index.js";
import { matrixConfigSchema } from "../../src/platforms/matrix/config.js";
import { ALLOWED_TEST_USERS, startTestBaton, type TestBaton } from "../support/harness.js";

const TIMEOUT_MS = 25_000;
let fake: FakeHomeserver;
let dataDir: string;
let baton: TestBaton | undefined;
let bot: string;
let alice: string;
let mallory: string;
let room: Room;

beforeEach(async () => {
  fake = await FakeHomeserver.start();
  dataDir = mkdtempSync(join(tmpdir(), "baton-matrix-rooms-"));
  const { password } = fake.register("baton", undefined, "Baton");
  bot = `@baton:${fake.serverName}`;
  alice = fake.register("alice").userId;
  mallory = fake.register("mallory").userId;
  const config = matrixConfigSchema.parse({ homeserver: fake.baseUrl, user_id: bot, password });
  const adapter = new MatrixAdapter("matrix", config, { dataDir, cacheDir: join(dataDir, "cache") });
  baton = await startTestBaton({ adapters: [adapter], dataDir, config: { access: { allow: [...ALLOWED_TEST_USERS, `matrix:${alice}`] } } });
  room = createRoom(fake.state, alice, { invite: [bot, mallory], name: "team" });
  joinRoom(fake.state, room, mallory);
  await until(() => fake.state.membership(room, bot) === "join", "the bot joined");
});
afterEach(async () => {
  await baton?.stop();
  baton = undefined;
  await fake.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function until<T>(probe: () => T | undefined | false, what: string): Promise<T> {
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 30));
  }
}

const say = (sender: string, body: string, extra: Record<string, unknown> = {}) => sendEvent(fake.state, room, sender, "m.room.message", { msgtype: "m.text", body, ...extra });
const botEvents = () => room.timeline.map((s) => s.event).filter((e) => e.sender === bot && e.type === "m.room.message");
const latestText = (eventId: string) => {
  const edits = botEvents().filter((e) => e.content["m.relates_to"]?.rel_type === "m.replace" && e.content["m.relates_to"].event_id === eventId);
  return (edits.at(-1)?.content["m.new_content"] ?? botEvents().find((e) => e.event_id === eventId)?.content)?.body as string | undefined;
};
const answered = (pattern: RegExp) => botEvents().find((e) => e.content["m.relates_to"]?.rel_type !== "m.replace" && pattern.test(latestText(e.event_id) ?? ""));

it("in a room of three, unaddressed messages are ignored and a mention is answered", async () => {
  say(alice, "just chatting among us");
  say(alice, "Baton: hello from the room", { "m.mentions": { user_ids: [bot] } });
  const reply = await until(() => answered(/you said "hello from the room"/), "the answer to the mention");
  expect(botEvents().some((e) => /just chatting/.test(JSON.stringify(e.content)))).toBe(false);
  expect(latestText(reply.event_id)).toMatch(/^Turn 1 of session/);
});

it("a message in a thread is answered in that thread", async () => {
  const root = say(alice, "thread starter");
  say(alice, "@baton in the thread", { "m.relates_to": { rel_type: "m.thread", event_id: root.event_id, is_falling_back: true, "m.in_reply_to": { event_id: root.event_id } } });
  const reply = await until(() => answered(/you said "in the thread"/), "the answer in the thread");
  expect(reply.content["m.relates_to"]).toMatchObject({ rel_type: "m.thread", event_id: root.event_id });
});

it("an approval is answered by reaction: a stranger's reaction changes nothing, the allowed user's decides", async () => {
  say(alice, "@baton demo:permission");
  const request = await until(() => botEvents().find((e) => /👍/.test(e.content.body ?? "")), "the approval request");
  await until(() => room.timeline.filter((s) => s.event.type === "m.reaction" && s.event.sender === bot).length >= 2, "the bot's reaction choices");
  const react = (sender: string, key: string) => sendEvent(fake.state, room, sender, "m.reaction", { "m.relates_to": { rel_type: "m.annotation", event_id: request.event_id, key } });
  react(mallory, "👍");
  await new Promise((r) => setTimeout(r, 700));
  expect(latestText(request.event_id)).toBe(request.content.body);
  react(alice, "👍");
  await until(() => latestText(request.event_id) !== request.content.body, "the request edited with the decision");
  expect(latestText(request.event_id)).toMatch(/alice/i);
});

it("a 429 M_LIMIT_EXCEEDED is honoured: the answer arrives after retry_after_ms", async () => {
  fake.rateLimit(/\/send\/m\.room\.message\//, 400, 1, "PUT");
  say(alice, "@baton rate me");
  await until(() => answered(/you said "rate me"/), "the answer after the 429");
  const sends = fake.callsTo(/\/send\/m\.room\.message\//, "PUT");
  const limited = sends.findIndex((c) => c.status === 429);
  expect(limited).toBeGreaterThanOrEqual(0);
  expect(sends[limited + 1].status).toBe(200);
});

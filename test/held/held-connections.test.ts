// A minute on each platform through the CLI that ships: `bin/baton.js start` (dist/bundle/) against
// the platform's wire-level fake doing what the real service does to keep a connection alive —
// Slack pings every few seconds and wants pongs, Discord wants heartbeats at its HELLO interval,
// Telegram and Matrix hold long polls for their `timeout`, and Baton pings the web chat's browsers.
// Each test holds the connection for a minute (real sockets, real time), has the service close it
// once on the way with an event outstanding that the service delivers again, gets a message
// answered at the end of the minute, and ends with nothing logged at error or above.
// The five run at once (describe.concurrent), so the file takes about as long as one of them.
import { describe, expect, test } from "vitest";
import { createRoom, join as joinRoom, sendEvent } from "../fakes/matrix/rooms.js";
import { FakeHomeserver } from "../fakes/matrix/server.js";
import { seenMessages } from "../fakes/matrix/view.js";
import { FakeDiscord, visibleText as discordText } from "../fakes/discord/index.js";
import { FakeSlack, visibleText as slackText } from "../fakes/slack/index.js";
import { FakeBotApi } from "../fakes/telegram/fake-bot-api.js";
import { privateChat, user } from "../fakes/telegram/fake-chats.js";
import { eventually } from "../platforms/slack/helpers.js";
import { sleep, startShippedBaton, type ShippedBaton } from "../support/shipped-baton.js";
import { WebChatClient } from "../support/web-client.js";

/** How long each connection is held before the last message. */
const HOLD_MS = 60_000;
/** When in the minute the service closes the connection. */
const CLOSE_AT_MS = 25_000;
/** An answer from the demo agent (a real ACP process) on a machine busy with other test files. */
const ANSWER_MS = 20_000;
const TEST_MS = HOLD_MS + 90_000;
/** The demo agent's answer to `text` (a private chat or a room is one session, so any turn), its usage line after it. */
const answer = (text: string) => new RegExp(`^Turn \\d+ of session .*: you said "${text}"(\\n+[^\\n]*tokens[^\\n]*)?$`);

function baseConfig(allow: string[]): string {
  return `agents: { default: demo, spare_host: false }\naccess: { allow: [${allow.map((a) => JSON.stringify(a)).join(", ")}] }\nops: { listen: "off" }\nshutdown_grace: 0\n`;
}

/** The minute is measured from when the daemon was ready. */
async function untilMinute(startedAt: number, atMs: number): Promise<void> {
  await sleep(Math.max(0, startedAt + atMs - Date.now()));
}

/** Registers what a test started to be stopped when it ends (each test its own: they run at once). */
function cleanupsOf(onTestFinished: (fn: () => Promise<void>) => void): (cleanup: () => unknown) => void {
  return (cleanup) =>
    onTestFinished(async () => {
      await cleanup();
    });
}

/** Stops Baton (it must exit 0) and checks its log: nothing at error or above, no stray stderr. */
async function stopCleanly(baton: ShippedBaton): Promise<void> {
  const code = await baton.stop();
  expect(baton.problems(), "log lines at error or above, or stderr that is not the JSON log").toEqual([]);
  expect(code).toBe(0);
}

describe.concurrent("a held connection through bin/baton.js", () => {
  test(
    "Slack Socket Mode: server pings, client pings, a `disconnect` refresh with an unacked envelope",
    async ({ onTestFinished }) => {
      const cleanups = cleanupsOf(onTestFinished);
      const fake = await new FakeSlack().start();
      cleanups(() => fake.stop());
      // Slack pings every few seconds and closes a connection that misses a pong (by the next ping).
      fake.socket.pingEvery(4000);
      const baton = await startShippedBaton(
        `${baseConfig(["slack:U111"])}platforms:\n  slack: { bot_token: ${fake.options.botToken}, app_token: ${fake.options.appToken}, api_url: "${fake.apiUrl}" }\n`,
        { prefix: "baton-held-slack-" },
      );
      cleanups(() => baton.stop());
      const startedAt = Date.now();
      const mention = (text: string) => {
        const ts = fake.nextTs();
        fake.event({ type: "app_mention", channel: "C0GENERAL", channel_type: "channel", user: "U111", text: `<@U0BATON> ${text}`, ts });
        return ts;
      };
      const answers = (ts: string, text: string) => fake.botMessages("C0GENERAL", ts).filter((m) => answer(text).test(slackText(m)));

      const first = mention("first");
      await eventually(() => answers(first, "first").length === 1, ANSWER_MS, "the first answer");

      // Held so far on the one connection, nothing logged at error: the client's own pings work.
      await untilMinute(startedAt, CLOSE_AT_MS);
      expect({ connections: fake.socket.connections, problems: baton.problems() }).toEqual({ connections: 1, problems: [] });

      // Slack refreshes the connection while an envelope's ack is lost: it comes again on the new one.
      fake.socket.loseAcks(1);
      const during = mention("during the refresh");
      await eventually(() => fake.socket.lostAcks.length === 1, ANSWER_MS, "the lost ack");
      const refreshAt = Date.now();
      fake.socket.askToReconnect();
      await eventually(() => fake.socket.connections === 2, 10_000, "the new connection");
      // socket-mode opens the new connection at once (apps.connections.open, then the socket).
      expect(Date.now() - refreshAt).toBeLessThan(10_000);
      await eventually(() => fake.socket.unacked().length === 0, ANSWER_MS, "the redelivery acked");
      expect(fake.socket.sent.filter((e) => e.retry_attempt === 1)).toHaveLength(1);
      await eventually(() => answers(during, "during the refresh").length === 1, ANSWER_MS, "the answer to the redelivered event");

      await untilMinute(startedAt, HOLD_MS);
      const last = mention("after a minute");
      await eventually(() => answers(last, "after a minute").length === 1, ANSWER_MS, "the answer after a minute");
      // One refresh, no other reconnection: every server ping was answered, the client pinged too.
      expect(fake.socket.connections).toBe(2);
      expect(fake.socket.liveness.closedForNoPong).toBe(0);
      expect(fake.socket.liveness.pings).toBeGreaterThanOrEqual(12);
      expect(fake.socket.liveness.pongs).toBeGreaterThanOrEqual(fake.socket.liveness.pings - 1);
      // @slack/socket-mode pings every 5 s.
      expect(fake.socket.liveness.clientPings).toBeGreaterThanOrEqual(10);
      expect(answers(during, "during the refresh")).toHaveLength(1);
      expect(fake.socket.protocolErrors).toEqual([]);
      await stopCleanly(baton);
    },
    TEST_MS,
  );

  test(
    "Discord gateway: heartbeats at HELLO's interval, a 4000 close with a lost event replayed on RESUME",
    async ({ onTestFinished }) => {
      const cleanups = cleanupsOf(onTestFinished);
      const fake = await new FakeDiscord({ heartbeatIntervalMs: 5000 }).start();
      cleanups(() => fake.stop());
      // A heartbeat later than the interval plus this gets the connection closed with 4000 (room
      // for a busy machine: discord.js heartbeats on the interval, the first after a random part of it).
      fake.gateway.expectHeartbeats(4000);
      const alice = fake.addUser("alice");
      const baton = await startShippedBaton(`${baseConfig([`discord:${alice.id}`])}platforms:\n  discord: { token: "${fake.token}", api_url: "${fake.apiUrl}" }\n`, { prefix: "baton-held-discord-" });
      cleanups(() => baton.stop());
      const startedAt = Date.now();
      const answers = (channelId: string, text: string) => fake.botMessages(channelId).filter((m) => answer(text).test(discordText(m.content)));
      const ask = (text: string) => fake.say(alice, fake.general, text, { mention: true });

      const first = ask("first");
      await eventually(() => answers(first.id, "first").length === 1, ANSWER_MS, "the first answer");

      // The event goes out as the connection dies: the bot never sees it until it resumes.
      await untilMinute(startedAt, CLOSE_AT_MS);
      fake.gateway.loseNextFrames(1);
      const during = ask("during the close");
      const closedAt = Date.now();
      fake.gateway.closeAll(4000, "Unknown error");
      await eventually(() => fake.gateway.resumes === 1 && fake.gateway.live.length === 1, 10_000, "the resume");
      // Discord: reconnect and resume at once after a resumable close.
      expect(Date.now() - closedAt).toBeLessThan(10_000);
      await eventually(() => answers(during.id, "during the close").length === 1, ANSWER_MS, "the answer to the replayed event");

      await untilMinute(startedAt, HOLD_MS);
      const last = ask("after a minute");
      await eventually(() => answers(last.id, "after a minute").length === 1, ANSWER_MS, "the answer after a minute");
      expect(fake.gateway.heartbeatTimeouts).toBe(0);
      // About one heartbeat per 5 s over the minute.
      expect(fake.gateway.heartbeats).toBeGreaterThanOrEqual(10);
      expect(fake.gateway.identifies).toBe(1);
      expect(fake.gateway.resumes).toBe(1);
      expect(fake.gateway.closes).toEqual([4000]);
      expect(answers(during.id, "during the close")).toHaveLength(1);
      await stopCleanly(baton);
    },
    TEST_MS,
  );

  test(
    "Telegram long poll: getUpdates held for its `timeout`, an answer cut off on the wire and delivered again",
    async ({ onTestFinished }) => {
      const cleanups = cleanupsOf(onTestFinished);
      const fake = await FakeBotApi.start();
      cleanups(() => fake.close());
      const alice = user(111, "Alice", "alice");
      const baton = await startShippedBaton(`${baseConfig(["telegram:111"])}platforms:\n  telegram: { token: "${fake.token}", api_root: "${fake.apiRoot}" }\n`, { prefix: "baton-held-telegram-" });
      cleanups(() => baton.stop());
      const startedAt = Date.now();
      const answers = (text: string) => fake.sentTo(111).filter((m) => answer(text).test(m.text));
      const say = (text: string) => fake.userSends({ chat: privateChat(alice), from: alice, text });

      say("first");
      await eventually(() => answers("first").length === 1, ANSWER_MS, "the first answer");

      // The held poll's answer is lost on the wire: the update is still unconfirmed, so it comes again.
      await untilMinute(startedAt, CLOSE_AT_MS);
      fake.dropNextDelivery();
      const droppedAt = Date.now();
      say("during the cut");
      await eventually(() => fake.droppedDeliveries === 1, ANSWER_MS, "the cut-off answer");
      await eventually(() => answers("during the cut").length === 1, ANSWER_MS, "the answer to the update delivered again");
      // Baton's poller retries a network failure after 1 s (doubling from there).
      expect(Date.now() - droppedAt).toBeLessThan(ANSWER_MS);

      await untilMinute(startedAt, HOLD_MS);
      say("after a minute");
      await eventually(() => answers("after a minute").length === 1, ANSWER_MS, "the answer after a minute");
      // Baton asks Telegram to hold each poll 30 s: a quiet minute holds at least one to its end.
      expect(fake.callsOf("getUpdates").filter((c) => Number(c.params.timeout) === 30).length).toBeGreaterThanOrEqual(3);
      expect(fake.pollsTimedOut).toBeGreaterThanOrEqual(1);
      expect(answers("during the cut")).toHaveLength(1);
      await stopCleanly(baton);
    },
    TEST_MS,
  );

  test(
    "Matrix sync: /sync held for its timeout, a held sync's connection dropped with a message waiting",
    async ({ onTestFinished }) => {
      const cleanups = cleanupsOf(onTestFinished);
      const fake = await FakeHomeserver.start();
      cleanups(() => fake.stop());
      const { password } = fake.register("baton", undefined, "Baton");
      const bot = `@baton:${fake.serverName}`;
      const alice = fake.register("alice", undefined, "Alice").userId;
      const baton = await startShippedBaton(`${baseConfig([`matrix:${alice}`])}platforms:\n  matrix: { homeserver: "${fake.baseUrl}", user_id: "${bot}", password: "\${MATRIX_PASSWORD}" }\n`, {
        prefix: "baton-held-matrix-",
        env: { MATRIX_PASSWORD: password },
      });
      cleanups(() => baton.stop());
      const startedAt = Date.now();
      const room = createRoom(fake.state, alice, { invite: [bot] });
      joinRoom(fake.state, room, bot);
      const answers = (text: string) => seenMessages(room, bot).filter((m) => answer(text).test(m.text));
      const say = (text: string) => sendEvent(fake.state, room, alice, "m.room.message", { msgtype: "m.text", body: text });

      say("first");
      await eventually(() => answers("first").length === 1, ANSWER_MS, "the first answer");

      // The held /sync's connection dies; the message waiting comes with the next /sync from the same `since`.
      await untilMinute(startedAt, CLOSE_AT_MS);
      await eventually(() => fake.dropHeldSyncs() === 1, 35_000, "a held /sync to drop");
      const droppedAt = Date.now();
      say("during the drop");
      await eventually(() => answers("during the drop").length === 1, ANSWER_MS, "the answer after the drop");
      expect(Date.now() - droppedAt).toBeLessThan(ANSWER_MS);

      await untilMinute(startedAt, HOLD_MS);
      say("after a minute");
      await eventually(() => answers("after a minute").length === 1, ANSWER_MS, "the answer after a minute");
      // A quiet stretch of the minute was spent in one held /sync.
      expect(fake.longestSyncHoldMs).toBeGreaterThanOrEqual(15_000);
      // The SDK long-polls: its incremental syncs ask the server to hold them (30 s).
      expect(fake.callsTo(/\/sync$/).filter((c) => c.query.since && Number(c.query.timeout) >= 10_000).length).toBeGreaterThanOrEqual(2);
      await stopCleanly(baton);
    },
    TEST_MS,
  );

  test(
    "web chat: Baton's pings answered over a minute; the browser's connection dropped and the answer it missed in its history",
    async ({ onTestFinished }) => {
      const cleanups = cleanupsOf(onTestFinished);
      const baton = await startShippedBaton(`${baseConfig([])}platforms:\n  web: { listen: "127.0.0.1:0" }\n`, { prefix: "baton-held-web-" });
      cleanups(() => baton.stop());
      const startedAt = Date.now();
      const url = /^Web chat: (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/m.exec(baton.stdout())?.[1];
      expect(url, baton.stdout()).toBeDefined();
      const first = await WebChatClient.open(url!, "held-first");
      cleanups(async () => first.close());
      first.send("first");
      await first.waitFor(answer("first"), ANSWER_MS);

      // The browser's network drops right after it sent a message; the page reconnects and reopens it.
      await untilMinute(startedAt, CLOSE_AT_MS);
      const during = await WebChatClient.open(url!, "held-during");
      during.send("during the drop");
      await sleep(20);
      during.close();
      await sleep(3000);
      const again = await WebChatClient.open(url!, "held-during");
      cleanups(async () => again.close());
      await again.waitFor(answer("during the drop"), ANSWER_MS);

      await untilMinute(startedAt, HOLD_MS);
      const last = await WebChatClient.open(url!, "held-last");
      cleanups(async () => last.close());
      last.send("after a minute");
      await last.waitFor(answer("after a minute"), ANSWER_MS);
      // Baton pings every 30 s: the first connection got them for the whole minute and stayed open.
      expect(first.pings).toBeGreaterThanOrEqual(1);
      expect(first.closedByServer).toBe(false);
      expect(again.closedByServer).toBe(false);
      expect([...again.messages.values()].filter((t) => answer("during the drop").test(t))).toHaveLength(1);
      await stopCleanly(baton);
    },
    TEST_MS,
  );
});

// Conversations through the adapter against the fake Slack and a recording core.
import { afterEach, describe, expect, test } from "vitest";
import { eventually, RecordingCore, startSlackTestBed, type SlackTestBed } from "./helpers.js";

const CHANNEL = "C0GENERAL";
const HUMAN = "U0ALICE";

describe("Slack adapter: conversations", () => {
  let bed: SlackTestBed;
  afterEach(async () => bed?.stop());

  test("start() checks the token and says whom it connected as", async () => {
    bed = await startSlackTestBed();
    const info = await bed.adapter.start(new RecordingCore());
    expect(info.description).toBe("slack: connected as @baton in Fake Team");
    expect(bed.fake.callsTo("auth.test")).toHaveLength(1);
    expect(bed.fake.callsTo("apps.connections.open")).toHaveLength(1);
    expect(bed.fake.socket.connections).toBe(1);
  });

  test("a mention starts a threaded conversation, streamed by chat.update; a follow-up needs no mention", async () => {
    bed = await startSlackTestBed();
    const core = new RecordingCore();
    await bed.adapter.start(core);
    const mentionTs = bed.fake.nextTs();
    const route = `slack:T0FAKE/${CHANNEL}:${mentionTs}`;
    core.onMessage = async (message) => {
      if (message.text !== "@baton fix the build") return;
      const ref = await bed.adapter.send(message.route, { text: "Working" });
      await bed.adapter.edit(message.route, ref, { text: "Working on **it**" });
      await bed.adapter.edit(message.route, ref, { text: "Done: see [the log](https://ci.example/1?a=1&b=2)" });
    };
    await bed.fake.event({ type: "app_mention", channel: CHANNEL, channel_type: "channel", user: HUMAN, text: "<@U0BATON> fix the build", ts: mentionTs }).acked;
    // Slack sends the same mention as a message event too: it must not count twice.
    await bed.fake.event({ type: "message", channel: CHANNEL, channel_type: "channel", user: HUMAN, text: "<@U0BATON> fix the build", ts: mentionTs }).acked;

    await eventually(() => bed.fake.callsTo("chat.update").length === 2, 5000, "two edits");
    expect(core.messages).toHaveLength(1);
    // The mention is shown as `@<bot name>` and reported; the core takes it out and decides.
    expect(core.messages[0]).toMatchObject({
      route,
      user: { id: `slack:${HUMAN}` },
      text: "@baton fix the build",
      mentions: ["@baton"],
      direct: false,
      messageId: mentionTs,
      scopes: [`slack:T0FAKE/${CHANNEL}`],
    });
    const [post] = bed.fake.callsTo("chat.postMessage");
    expect(post.params).toMatchObject({ channel: CHANNEL, thread_ts: mentionTs });
    const [message] = bed.fake.botMessages(CHANNEL, mentionTs);
    expect(message.blocks?.[0].text.text).toBe("Done: see <https://ci.example/1?a=1&amp;b=2|the log>");

    // A follow-up in the thread, no mention: same route.
    const followTs = bed.fake.nextTs();
    await bed.fake.event({ type: "message", channel: CHANNEL, channel_type: "channel", user: HUMAN, text: "and the tests", ts: followTs, thread_ts: mentionTs }).acked;
    await eventually(() => core.messages.length === 2, 5000, "follow-up");
    expect(core.messages[1]).toMatchObject({ route, text: "and the tests", replyToBot: true, messageId: followTs });

    // Chatter elsewhere in the channel is handed over as what it is: no mention, no reply to the bot.
    await bed.fake.event({ type: "message", channel: CHANNEL, channel_type: "channel", user: HUMAN, text: "lunch?", ts: bed.fake.nextTs() }).acked;
    await bed.fake.event({ type: "message", channel: CHANNEL, channel_type: "channel", user: HUMAN, text: "other thread", ts: bed.fake.nextTs(), thread_ts: "1600000000.000001" }).acked;
    // The bot's own messages and edits are ignored too.
    await bed.fake.event({ type: "message", channel: CHANNEL, channel_type: "channel", user: "U0BATON", bot_id: "B0BATON", text: "echo", ts: bed.fake.nextTs(), thread_ts: mentionTs }).acked;
    await bed.fake.event({ type: "message", subtype: "message_changed", channel: CHANNEL, channel_type: "channel", ts: bed.fake.nextTs() }).acked;
    await eventually(() => core.messages.length === 4, 5000, "the chatter");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(core.messages.slice(2).map((m) => [m.text, m.mentions, m.replyToBot])).toEqual([
      ["lunch?", undefined, false],
      ["other thread", undefined, false],
    ]);
    expect(core.messages).toHaveLength(4);
  });

  test("a reply in a thread the bot posted in is a reply to it; a channel message names its channel as scope", async () => {
    bed = await startSlackTestBed();
    const core = new RecordingCore();
    await bed.adapter.start(core);
    const parentTs = bed.fake.nextTs();
    await bed.adapter.send(`slack:T0FAKE/${CHANNEL}:${parentTs}`, { text: "I posted here" });
    await bed.fake.event({ type: "message", channel: CHANNEL, channel_type: "channel", user: HUMAN, text: "reply", ts: bed.fake.nextTs(), thread_ts: parentTs }).acked;
    const chatterTs = bed.fake.nextTs();
    await bed.fake.event({ type: "message", channel: "C0OPEN", channel_type: "channel", user: HUMAN, text: "anyone?", ts: chatterTs }).acked;
    await eventually(() => core.messages.length === 2, 5000, "two messages");
    expect(core.messages.map((m) => [m.route, m.replyToBot, m.scopes])).toEqual([
      [`slack:T0FAKE/${CHANNEL}:${parentTs}`, true, [`slack:T0FAKE/${CHANNEL}`]],
      [`slack:T0FAKE/C0OPEN:${chatterTs}`, false, ["slack:T0FAKE/C0OPEN"]],
    ]);
  });

  test("after a restart, one look at a thread (conversations.replies) tells whether the bot is in it", async () => {
    const first = await startSlackTestBed();
    const firstCore = new RecordingCore();
    await first.adapter.start(firstCore);
    const mentionTs = first.fake.nextTs();
    await first.fake.event({ type: "app_mention", channel: CHANNEL, channel_type: "channel", user: HUMAN, text: "<@U0BATON> start", ts: mentionTs }).acked;
    await eventually(() => firstCore.messages.length === 1, 5000, "the mention");
    await first.adapter.stop();

    // A new adapter (a restarted daemon) on the same Slack remembers nothing.
    bed = await startSlackTestBed({ fake: first.fake });
    const core = new RecordingCore();
    await bed.adapter.start(core);
    const route = `slack:T0FAKE/${CHANNEL}:${mentionTs}`;
    await bed.fake.event({ type: "message", channel: CHANNEL, channel_type: "channel", user: HUMAN, text: "still there?", ts: bed.fake.nextTs(), thread_ts: mentionTs }).acked;
    await bed.fake.event({ type: "message", channel: CHANNEL, channel_type: "channel", user: HUMAN, text: "and again", ts: bed.fake.nextTs(), thread_ts: mentionTs }).acked;
    await eventually(() => core.messages.length === 2, 5000, "both follow-ups");
    expect(core.messages.map((m) => [m.route, m.text, m.replyToBot])).toEqual([
      [route, "still there?", true],
      [route, "and again", true],
    ]);
    expect(bed.fake.callsTo("conversations.replies").map((c) => c.params)).toEqual([{ channel: CHANNEL, ts: mentionTs, limit: "200" }]);

    // A thread of people talking among themselves: looked at once, then ignored.
    const parentTs = bed.fake.nextTs();
    await bed.fake.event({ type: "message", channel: CHANNEL, channel_type: "channel", user: HUMAN, text: "team lunch?", ts: parentTs }).acked;
    for (const text of ["yes", "no"]) {
      await bed.fake.event({ type: "message", channel: CHANNEL, channel_type: "channel", user: "U0BOB", text, ts: bed.fake.nextTs(), thread_ts: parentTs }).acked;
    }
    await eventually(() => core.messages.length === 5, 5000, "the people's thread");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(core.messages.slice(2).map((m) => [m.text, m.replyToBot])).toEqual([
      ["team lunch?", false],
      ["yes", false],
      ["no", false],
    ]);
    expect(bed.fake.callsTo("conversations.replies")).toHaveLength(2);
  });

  test("a DM is one route; a thread in a DM is its own route", async () => {
    bed = await startSlackTestBed();
    const core = new RecordingCore();
    await bed.adapter.start(core);
    const dmTs = bed.fake.nextTs();
    await bed.fake.event({ type: "message", channel: "D0ALICE", channel_type: "im", user: HUMAN, text: "hello &lt;there&gt; <https://x.example|x>", ts: dmTs }).acked;
    await bed.fake.event({ type: "message", channel: "D0ALICE", channel_type: "im", user: HUMAN, text: "in a thread", ts: bed.fake.nextTs(), thread_ts: dmTs }).acked;
    await eventually(() => core.messages.length === 2, 5000, "two DMs");
    expect(core.messages[0]).toMatchObject({ route: "slack:T0FAKE/D0ALICE", text: "hello <there> x (https://x.example)", direct: true });
    expect(core.messages[1]).toMatchObject({ route: `slack:T0FAKE/D0ALICE:${dmTs}`, direct: true });
    const ref = await bed.adapter.send("slack:T0FAKE/D0ALICE", { text: "hi" });
    expect(bed.fake.callsTo("chat.postMessage")[0].params.thread_ts).toBeUndefined();
    expect(ref.id).toBe(bed.fake.botMessages("D0ALICE")[0].ts);
  });

  test("/baton status reaches the core as /status, acked at once; the answer goes through send()", async () => {
    bed = await startSlackTestBed();
    const core = new RecordingCore();
    core.onMessage = async (message) => {
      await bed.adapter.send(message.route, { text: "*status*: idle" });
    };
    await bed.adapter.start(core);
    const ack = await bed.fake.slashCommand({ user_id: HUMAN, channel_id: CHANNEL, text: "status" });
    expect(ack.envelope_id).toBeTruthy();
    await eventually(() => bed.fake.botMessages(CHANNEL).length === 1, 5000, "status answer");
    expect(core.messages[0]).toMatchObject({ route: `slack:T0FAKE/${CHANNEL}`, text: "/status", direct: false, user: { id: `slack:${HUMAN}` } });
    await bed.fake.slashCommand({ user_id: HUMAN, channel_id: "D0ALICE", text: "" });
    await eventually(() => core.messages.length === 2, 5000, "bare /baton");
    expect(core.messages[1]).toMatchObject({ route: "slack:T0FAKE/D0ALICE", text: "/help", direct: true });
  });
});

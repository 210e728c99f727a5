// The Socket Mode connection drops and comes back: nothing handled twice, nothing lost, and a
// clean stop that waits for the socket to close.
import { afterEach, describe, expect, test } from "vitest";
import { eventually, RecordingCore, startSlackTestBed, type SlackTestBed } from "./helpers.js";

const CHANNEL = "C0GENERAL";
const HUMAN = "U0ALICE";

describe("Slack adapter: Socket Mode reconnection", () => {
  let bed: SlackTestBed;
  afterEach(async () => bed?.stop());

  test("the socket drops with an ack lost; after reconnecting, redeliveries are acked but not handled twice", async () => {
    bed = await startSlackTestBed();
    const core = new RecordingCore();
    await bed.adapter.start(core);
    const { fake } = bed;

    // An event whose ack is lost, then the connection dies.
    fake.socket.loseAcks(1);
    const mentionTs = fake.nextTs();
    const lost = fake.event({ type: "app_mention", channel: CHANNEL, channel_type: "channel", user: HUMAN, text: "<@U0BATON> once", ts: mentionTs });
    await eventually(() => fake.socket.lostAcks.length === 1, 5000, "the lost ack");
    await eventually(() => core.messages.length === 1, 5000, "the first delivery handled");
    fake.socket.drop();

    // An event raised while disconnected waits for the new connection.
    const whileDownTs = fake.nextTs();
    const whileDown = fake.event({ type: "message", channel: "D0ALICE", channel_type: "im", user: HUMAN, text: "while down", ts: whileDownTs });

    // Bolt reconnects by itself (apps.connections.open again); the fake resends the unacked envelope.
    await lost.acked;
    await whileDown.acked;
    expect(fake.socket.connections).toBe(2);
    expect(fake.callsTo("apps.connections.open")).toHaveLength(2);
    const redelivered = fake.socket.sent.filter((e) => e.envelope_id === lost.envelopeId);
    expect(redelivered.map((e) => e.retry_attempt)).toEqual([0, 1]);

    // Slack may also resend an event under a new envelope id: same event_id, still once.
    await fake.socket.deliver("events_api", lost.payload).acked;

    await eventually(() => core.messages.length === 2, 5000, "the message sent while down");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(core.messages.map((m) => m.text)).toEqual(["@baton once", "while down"]);
    expect(fake.socket.protocolErrors).toEqual([]);
    expect(fake.socket.unacked()).toEqual([]);

    // And the connection works both ways afterwards.
    await bed.adapter.send(`slack:T0FAKE/${CHANNEL}:${mentionTs}`, { text: "still here" });
    expect(fake.botMessages(CHANNEL, mentionTs)).toHaveLength(1);
  }, 20_000);

  test("Slack's `disconnect` message: the client reconnects and keeps handling events", async () => {
    bed = await startSlackTestBed();
    const core = new RecordingCore();
    await bed.adapter.start(core);
    bed.fake.socket.askToReconnect();
    await eventually(() => bed.fake.socket.connections === 2, 15_000, "second connection");
    await bed.fake.event({ type: "message", channel: "D0ALICE", channel_type: "im", user: HUMAN, text: "after refresh", ts: bed.fake.nextTs() }).acked;
    await eventually(() => core.messages.length === 1, 5000, "message after refresh");
  }, 20_000);

  test("stop() resolves once the socket is closed, and no reconnect follows", async () => {
    bed = await startSlackTestBed();
    await bed.adapter.start(new RecordingCore());
    expect(bed.fake.socket.connected).toBe(true);
    await bed.adapter.stop();
    expect(bed.fake.socket.connected).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(bed.fake.callsTo("apps.connections.open")).toHaveLength(1);
  });
});

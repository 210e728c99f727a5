// Output to Slack, one Web API call each: approvals by button, sections within Slack's limit, errors
// typed for the core (which orders, paces and retries: test/platforms/slack.contract.test.ts),
// the turn status.
import { afterEach, describe, expect, test } from "vitest";
import type { OutboundMessage } from "../../../src/platforms/contract.js";
import { FormattingError, PlatformError } from "../../../src/kernel/errors.js";
import { FakeSlack } from "../../fakes/slack/index.js";
import { eventually, RecordingCore, startSlackTestBed, type SlackTestBed } from "./helpers.js";

const CHANNEL = "C0GENERAL";
const OWNER = "U0ALICE";
const STRANGER = "U0MALLORY";

describe("Slack adapter: delivery", () => {
  let bed: SlackTestBed;
  afterEach(async () => bed?.stop());

  test("an approval by button: the allowed user's press reaches the core, a stranger's is refused ephemerally", async () => {
    bed = await startSlackTestBed();
    const core = new RecordingCore();
    core.onAction = async (press) => {
      if (press.user.id !== `slack:${OWNER}`) return { ok: false, text: `Only allowed users can answer; ask the operator to add ${press.user.id}` };
      return { ok: true, text: "Allowed once" };
    };
    await bed.adapter.start(core);
    const threadTs = bed.fake.nextTs();
    const route = `slack:T0FAKE/${CHANNEL}:${threadTs}`;
    const approval: OutboundMessage = {
      kind: "approval",
      text: "**Run command?** `rm -rf build`",
      buttons: [
        [
          { id: "ap1:allow_once", label: "Allow once", style: "primary" },
          { id: "ap1:allow_always", label: "Always allow" },
          { id: "ap1:reject", label: "Reject", style: "danger" },
        ],
      ],
    };
    const ref = await bed.adapter.send(route, approval);
    const [message] = bed.fake.botMessages(CHANNEL, threadTs);
    const actions = message.blocks!.find((b: any) => b.type === "actions");
    expect(actions.elements.map((e: any) => [e.value, e.style])).toEqual([
      ["ap1:allow_once", "primary"],
      ["ap1:allow_always", undefined],
      ["ap1:reject", "danger"],
    ]);

    await bed.fake.pressButton({ user_id: STRANGER, message, action_id: "baton:ap1:allow_once" });
    await eventually(() => bed.fake.ephemerals.length === 1, 5000, "ephemeral refusal");
    expect(bed.fake.ephemerals[0]).toMatchObject({ channel: CHANNEL, user: STRANGER, thread_ts: threadTs });
    expect(bed.fake.ephemerals[0].blocks![0].text.text).toContain("slack:U0MALLORY");
    expect(bed.fake.callsTo("chat.update")).toHaveLength(0);

    await bed.fake.pressButton({ user_id: OWNER, message, action_id: "baton:ap1:allow_once" });
    await eventually(() => core.presses.length === 2, 5000, "owner press");
    expect(core.presses[1]).toMatchObject({ route, user: { id: `slack:${OWNER}` }, actionId: "ap1:allow_once" });
    expect(bed.fake.ephemerals).toHaveLength(1);

    // The core then edits the approval to show the decision; the buttons go away.
    await bed.adapter.edit(route, ref, { kind: "approval", text: "**Run command?** `rm -rf build` — allowed once by <@U0ALICE>" });
    expect(bed.fake.botMessages(CHANNEL, threadTs)[0].blocks!.some((b: any) => b.type === "actions")).toBe(false);
  });

  test("a message whose mrkdwn outgrows one section becomes several sections of one message", async () => {
    bed = await startSlackTestBed();
    await bed.adapter.start(new RecordingCore());
    const route = `slack:T0FAKE/${CHANNEL}:1700000000.000001`;
    // Escaping grows `&` and `<` four- and five-fold: the core's 2,900 characters render far longer.
    const text = Array.from({ length: 60 }, (_, i) => `Line ${i}: a && b << c`)
      .join("\n")
      .slice(0, bed.adapter.capabilities.maxMessageLength);
    await bed.adapter.send(route, { text });
    const [posted] = bed.fake.botMessages(CHANNEL);
    expect(posted.blocks!.length).toBeGreaterThan(0);
    for (const block of posted.blocks!) expect(block.text.text.length).toBeLessThanOrEqual(3000);
    expect(
      posted
        .blocks!.map((b: any) => b.text.text)
        .join("\n")
        .match(/Line \d+/g),
    ).toEqual(text.match(/Line \d+/g));
  });

  test("a 429 is a rate limit with Slack's Retry-After, for the whole workspace, not waited out here", async () => {
    bed = await startSlackTestBed();
    await bed.adapter.start(new RecordingCore());
    const route = `slack:T0FAKE/${CHANNEL}:1700000000.000001`;
    const ref = await bed.adapter.send(route, { text: "v0" });
    bed.fake.rateLimitNext("chat.update", 3);
    const error = (await bed.adapter.edit(route, ref, { text: "v1" }).catch((e: unknown) => e)) as PlatformError;
    expect(error).toMatchObject({ reason: "rate_limited", retryAfterMs: 3000, retryScope: "platform" });
    expect(bed.fake.callsTo("chat.update")).toHaveLength(1);
  });

  test("Slack's refusals become PlatformError refused; a refused formatting is a FormattingError; plain is the words in text", async () => {
    bed = await startSlackTestBed();
    await bed.adapter.start(new RecordingCore());
    const route = `slack:T0FAKE/${CHANNEL}`;
    bed.fake.failNext("chat.postMessage", "channel_not_found");
    const error = await bed.adapter.send(route, { text: "x" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect((error as PlatformError).reason).toBe("refused");
    expect((error as PlatformError).userMessage).toContain("channel_not_found");

    bed.fake.failNext("chat.postMessage", "invalid_blocks");
    await expect(bed.adapter.send(route, { text: "**kept** <b>" })).rejects.toBeInstanceOf(FormattingError);
    await bed.adapter.send(route, { text: "**kept** <b>", format: "plain" });
    const [, refused, resent] = bed.fake.callsTo("chat.postMessage");
    expect(refused.outcome).toBe("invalid_blocks");
    expect(resent.params).toMatchObject({ text: "**kept** &lt;b&gt;" });
    expect(resent.params.blocks).toEqual([]);
  });

  test("Slack out of reach is a PlatformError network", async () => {
    const fake = await new FakeSlack().start();
    bed = await startSlackTestBed({ fake });
    await bed.adapter.start(new RecordingCore());
    await bed.adapter.stop();
    await fake.stop();
    const error = await bed.adapter.send(`slack:T0FAKE/${CHANNEL}`, { text: "x" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect((error as PlatformError).reason).toBe("network");
    bed = { ...bed, stop: async () => undefined };
  });

  test("turn status: a reaction on the prompt while the turn runs, removed after", async () => {
    bed = await startSlackTestBed();
    await bed.adapter.start(new RecordingCore());
    const promptTs = "1700000000.000009";
    const route = `slack:T0FAKE/${CHANNEL}:${promptTs}`;
    await bed.adapter.turnStatus(route, "running", promptTs);
    expect([...bed.fake.reactions]).toEqual([`${CHANNEL}:${promptTs}:hourglass_flowing_sand`]);
    await bed.adapter.turnStatus(route, "idle");
    expect(bed.fake.reactions.size).toBe(0);
    expect(bed.fake.callsTo("assistant.threads.setStatus")).toHaveLength(0);
  });

  test("turn status: the assistant thread status where the app has assistant:write", async () => {
    const fake = await new FakeSlack({ scopes: ["chat:write", "assistant:write"] }).start();
    bed = await startSlackTestBed({ fake });
    await bed.adapter.start(new RecordingCore());
    const route = `slack:T0FAKE/D0ALICE:1700000000.000010`;
    await bed.adapter.turnStatus(route, "running", "1700000000.000011");
    await bed.adapter.turnStatus(route, "idle");
    expect(fake.callsTo("assistant.threads.setStatus").map((c) => c.params)).toEqual([
      { channel_id: "D0ALICE", thread_ts: "1700000000.000010", status: "is working…" },
      { channel_id: "D0ALICE", thread_ts: "1700000000.000010", status: "" },
    ]);
    expect(fake.callsTo("reactions.add")).toHaveLength(0);
  });
});

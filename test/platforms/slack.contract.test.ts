// Slack runs the platform contract against the fake Slack (Web API + Socket Mode, test/fakes/slack).
import { createSlackAdapter } from "../../src/platforms/slack/index.js";
import { slackConfigSchema } from "../../src/platforms/slack/config.js";
import { FakeSlack, visibleText } from "../fakes/slack/index.js";
import { runAdapterContract, type ContractDriver, type ScriptedFailure, type ShownMessage, type Where } from "./contract.js";

const ALICE = "U111";
const MALLORY = "U999";
const CHANNELS: Record<Where, string> = { direct: "D0ALICE", strangerDirect: "D0MALLORY", group: "C0TEAM" };
const METHOD = { send: "chat.postMessage", edit: "chat.update" } as const;

runAdapterContract("slack", async (): Promise<ContractDriver> => {
  const fake = await new FakeSlack().start();
  const config = slackConfigSchema.parse({ bot_token: fake.options.botToken, app_token: fake.options.appToken, api_url: fake.apiUrl, min_edit_gap_ms: 100 });
  const adapter = createSlackAdapter("slack", config, { dataDir: "/nonexistent" }, { retryConfig: { retries: 0 } });
  let groupThread: string | undefined;
  let nextFile = 0;
  const threadOf = (where: Where) => (where === "group" ? groupThread : undefined);
  const ephemeralsOf = (where: Where) => fake.ephemerals.filter((e) => e.channel === CHANNELS[where]);

  function shown(where: Where): ShownMessage[] {
    const posted = fake.botMessages(CHANNELS[where], threadOf(where)).map((m) => ({
      id: m.ts,
      text: visibleText(m),
      buttons: (m.blocks ?? []).flatMap((b: any) => (b.type === "actions" ? b.elements.map((e: any) => e.text.text) : [])),
    }));
    // An ephemeral is shown to its user in that conversation.
    const ephemeral = ephemeralsOf(where).map((e, i) => ({ id: `ephemeral-${i}`, text: visibleText(e), buttons: [] }));
    return [...posted, ...ephemeral];
  }

  function failure(call: "send" | "edit", scripted: ScriptedFailure): void {
    if (scripted.kind === "rate_limited") fake.rateLimitNext(METHOD[call], Math.ceil(scripted.retryAfterMs / 1000));
    else fake.failNext(METHOD[call], scripted.kind === "formatting" ? "invalid_blocks" : call === "edit" ? "message_not_found" : "channel_not_found");
  }

  return {
    adapter,
    allowedId: `slack:${ALICE}`,
    visibleLimit: 3000 * 50,
    features: { remoteFailures: true, strangers: true, groups: true, files: true },
    route: (where) => `slack:T0FAKE/${CHANNELS[where]}${threadOf(where) ? `:${threadOf(where)}` : ""}`,
    async userSays(where, text, options = {}) {
      const user = options.stranger ? MALLORY : ALICE;
      if (where === "group" && !groupThread) {
        // The conversation happens in a thread under a person's message.
        groupThread = fake.nextTs();
        await fake.event({ type: "message", channel: CHANNELS.group, channel_type: "channel", user: ALICE, text: "kickoff", ts: groupThread }).acked;
      }
      const files = (options.files ?? []).map((f) => {
        const id = `F${nextFile++}`;
        return { id, name: f.name, mimetype: f.mimeType, size: f.data.length, url_private_download: fake.addFile(id, f.data) };
      });
      const body = options.mention ? `<@${fake.options.botUserId}> ${text}` : text;
      const channelType = where === "group" ? "channel" : "im";
      await fake.event({
        type: "message",
        channel: CHANNELS[where],
        channel_type: channelType,
        user,
        text: body,
        ts: fake.nextTs(),
        thread_ts: threadOf(where),
        files: files.length ? files : undefined,
        subtype: files.length ? "file_share" : undefined,
      }).acked;
    },
    shown,
    async press(where, message, label, options = {}) {
      const user = options.stranger ? MALLORY : ALICE;
      const posted = fake.botMessages(CHANNELS[where], threadOf(where)).find((m) => m.ts === message.id)!;
      const button = (posted.blocks ?? []).flatMap((b: any) => b.elements ?? []).find((e: any) => e.text?.text === label);
      const before = fake.ephemerals.length;
      await fake.pressButton({ user_id: user, message: posted, action_id: button.action_id });
      // A refusal comes as an ephemeral to the presser; an accepted press shows in the message itself.
      const deadline = Date.now() + 1500;
      while (Date.now() < deadline) {
        const refusal = fake.ephemerals.slice(before).find((e) => e.user === user);
        if (refusal) return { ok: false, text: visibleText(refusal) };
        await new Promise((r) => setTimeout(r, 25));
      }
      return { ok: true, text: "" };
    },
    failNext: failure,
    rateRefusals: () => fake.floodRefusals,
    calls: () =>
      fake.calls
        .filter((c) => c.method === METHOD.send || c.method === METHOD.edit)
        .map((c) => ({ call: c.method === METHOD.send ? ("send" as const) : ("edit" as const), at: c.at, failed: c.outcome !== "ok", text: visibleText(c.params), messageId: c.params.ts })),
    activity: (where) => fake.calls.filter((c) => (c.method === "reactions.add" || c.method === "assistant.threads.setStatus") && c.params.channel === CHANNELS[where]).length,
    fileDownloads: () => fake.callsTo("GET /files").length,
    uploads: (where) =>
      fake
        .botMessages(CHANNELS[where], threadOf(where))
        .flatMap((m) => (m.files ?? []).map((f) => ({ name: f.filename, mimeType: f.mimeType, size: f.length, caption: visibleText(m), data: f.data }))),
    close: () => fake.stop(),
  };
});

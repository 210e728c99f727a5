// Slack with the demo agent, beyond the shared contract items: an audio clip recorded in Slack (a
// file of subtype slack_audio, labelled video/mp4 by its container) is transcribed as a voice
// note; the agent's file is shared into the thread of the conversation through Slack's upload flow;
// an app without files:write is told in the chat what to add. Baton runs as `baton start`
// (bin/baton.js, the shipped bundle), its workspace this repository (for /file package.json).
import { afterEach, describe, expect, test } from "vitest";
import { FakeSlack, visibleText } from "../../fakes/slack/index.js";
import { FakeTranscriptionServer } from "../../fakes/transcription/server.js";
import { shippedConfig, startShippedBaton, type ShippedBaton } from "../../support/shipped-baton.js";
import { eventually } from "./helpers.js";

const ALICE = "U111";
const CHANNEL = "C0GENERAL";
const WAIT_MS = 20_000;

let fake: FakeSlack | undefined;
let baton: ShippedBaton | undefined;
let transcription: FakeTranscriptionServer | undefined;
/** The one error a test expects in the log (the operator must act on it); any other fails the test. */
let expectedError: RegExp | undefined;
afterEach(async () => {
  const stopped = baton;
  const expected = expectedError;
  await baton?.stop();
  await fake?.stop();
  await transcription?.stop();
  baton = fake = transcription = expectedError = undefined;
  const problems = stopped?.problems() ?? [];
  expect(problems.filter((line) => !expected?.test(line))).toEqual([]);
  if (expected) expect(problems.some((line) => expected.test(line))).toBe(true);
});

async function setup(options: { scopes?: string[]; config?: Record<string, unknown> } = {}) {
  fake = await new FakeSlack(options.scopes ? { scopes: options.scopes } : {}).start();
  const slack = { bot_token: fake.options.botToken, app_token: fake.options.appToken, api_url: fake.apiUrl, min_edit_gap_ms: 100 };
  const workspaces = { roots: [process.cwd()], default: process.cwd() };
  baton = await startShippedBaton(shippedConfig({ ...options.config, access: { allow: [`slack:${ALICE}`] }, workspaces, platforms: { slack } }), { prefix: "baton-slack-features-" });
  return fake;
}

const find = (pattern: RegExp, threadTs?: string) => fake!.botMessages(CHANNEL, threadTs).find((m) => pattern.test(visibleText(m)));

describe("slack: voice clips and files in threads", { timeout: 60_000 }, () => {
  test("an audio clip recorded in Slack is transcribed and answered in its thread", async () => {
    transcription = await new FakeTranscriptionServer().start();
    transcription.transcripts.push("deploy the staging branch");
    const slack = await setup({ config: { voice: { transcription: { url: transcription.url } } } });
    const ts = slack.nextTs();
    const clip = { id: "F0CLIP", name: "audio_message.mp4", mimetype: "video/mp4", subtype: "slack_audio", size: 9, url_private_download: slack.addFile("F0CLIP", Buffer.from("fake clip")) };
    slack.event({ type: "message", subtype: "file_share", channel: CHANNEL, channel_type: "channel", user: ALICE, text: "<@U0BATON>", ts, files: [clip] });
    await eventually(() => find(/you said "deploy the staging branch"/, ts), WAIT_MS, "the answer to the clip");
    expect(find(/🎙️ _deploy the staging branch_/, ts)).toBeDefined();
    expect(transcription.received[0]).toMatchObject({ fileName: "audio_message.mp4", mimeType: "audio/mp4", bytes: 9 });
  });

  test("the agent's image is shared into the conversation's thread through Slack's upload flow", async () => {
    const slack = await setup();
    const ts = slack.nextTs();
    slack.event({ type: "app_mention", channel: CHANNEL, channel_type: "channel", user: ALICE, text: "<@U0BATON> demo:image", ts });
    const shared = await eventually(() => slack.botMessages(CHANNEL, ts).find((m) => m.files?.length), WAIT_MS, "the shared image");
    expect(shared.files![0]).toMatchObject({ filename: "demo-squares.png", mimeType: "image/png", length: 74 });
    expect(shared.files![0].shared).toMatchObject({ channel: CHANNEL, thread_ts: ts });
    const calls = slack.calls.map((c) => c.method).filter((m) => m.startsWith("files."));
    expect(calls).toEqual(["files.getUploadURLExternal", "files.completeUploadExternal"]);
  });

  test("without files:write the chat hears what is missing", async () => {
    const slack = await setup({ scopes: ["app_mentions:read", "chat:write", "channels:history", "im:history", "commands", "files:read"] });
    const ts = slack.nextTs();
    slack.event({ type: "app_mention", channel: CHANNEL, channel_type: "channel", user: ALICE, text: "<@U0BATON> /file package.json", ts });
    await eventually(() => find(/Could not post `package\.json`: Slack refused the upload: the app lacks the files:write scope/, ts), WAIT_MS, "the refusal");
    // The operator reads it in the log too, at error: only a change to the app fixes it.
    expectedError = /"level":50.*Slack refused the upload: the app lacks the files:write scope/;
  });
});

// Voice notes through the real core: transcribed by a local fake of an OpenAI-compatible
// transcription server and sent as the prompt (the transcript shown back); without an endpoint,
// sent as audio to an agent that takes audio, else the user is told how to enable them.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { FakeTranscriptionServer } from "../fakes/transcription/server.js";
import { TestPlatform } from "../support/test-platform.js";
import { startTestBaton, testConfig, type TestBaton } from "../support/harness.js";
import { Transcriber, TranscriptionError } from "../../src/core/voice.js";

const dir = mkdtempSync(join(tmpdir(), "baton-voice-"));
const oggPath = join(dir, "voice.ogg");
writeFileSync(oggPath, Buffer.from("OggS fake opus voice note bytes"));
const voiceNote = { name: "voice.ogg", path: oggPath, mimeType: "audio/ogg", size: 31 };

let baton: TestBaton | undefined;
let server: FakeTranscriptionServer | undefined;
afterEach(async () => {
  await baton?.stop({ cleanup: true });
  await server?.stop();
  baton = undefined;
  server = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function setup(config: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) {
  const platform = new TestPlatform();
  baton = await startTestBaton({ adapters: [platform], config, env });
  return { platform, route: platform.route("voice") };
}

describe("voice notes", () => {
  it("are transcribed through the configured endpoint and sent as the prompt", async () => {
    server = await new FakeTranscriptionServer("sk-test-key-123456").start();
    server.transcripts.push("please run the tests");
    const { platform, route } = await setup({ voice: { transcription: { url: server.url, api_key: "sk-test-key-123456", model: "whisper-large-v3", language: "en" } } });
    await platform.say(route, "", undefined, { files: [voiceNote] });
    await platform.waitFor(route, /🎙️ _please run the tests_/);
    await platform.waitFor(route, /you said "please run the tests"/);
    expect(server.received).toEqual([{ fileName: "voice.ogg", mimeType: "audio/ogg", bytes: 31, model: "whisper-large-v3", language: "en", authorization: "Bearer sk-test-key-123456" }]);

    server.failNext = { status: 500, message: "model not loaded" };
    await platform.say(route, "", undefined, { files: [voiceNote] });
    await platform.waitFor(route, /⚠️ Could not transcribe voice\.ogg: The transcription server answered 500: model not loaded\./);
  });

  it("a reload that adds the transcription endpoint applies it without a restart", async () => {
    server = await new FakeTranscriptionServer().start();
    server.transcripts.push("after the reload");
    const { platform, route } = await setup({});
    await platform.say(route, "", undefined, { files: [voiceNote] });
    await platform.waitFor(route, /⚠️ Voice notes need a transcription server/);
    const report = baton!.daemon.reload(() => testConfig({ config: { voice: { transcription: { url: server!.url } } } }));
    expect(report).toMatchObject({ ok: true, applied: ["voice"], restartNeeded: [] });
    await platform.say(route, "", undefined, { files: [voiceNote] });
    await platform.waitFor(route, /you said "after the reload"/);
  });

  it("a URL with credentials that got past the config sends nothing and shows no secret", async () => {
    server = await new FakeTranscriptionServer("sk-test-key-123456").start();
    const url = server.url.replace("http://", "http://user:hunter2pw@");
    const transcriber = new Transcriber({ url, model: "whisper-1", timeout: 5_000 });
    const error = await transcriber.transcribe(voiceNote).catch((e: unknown) => e as TranscriptionError);
    expect(error).toBeInstanceOf(TranscriptionError);
    expect((error as TranscriptionError).userMessage).toContain("Node's fetch refuses, so nothing was sent");
    expect((error as TranscriptionError).userMessage).toContain("voice.transcription.api_key");
    expect(`${(error as Error).message} ${(error as TranscriptionError).userMessage}`).not.toContain("hunter2pw");
    expect(server.received).toEqual([]);
  });

  it("go as audio to an agent that takes audio when no endpoint is set", async () => {
    const { platform, route } = await setup({}, { BATON_DEMO_AUDIO: "1" });
    await platform.say(route, "listen", undefined, { files: [voiceNote] });
    await platform.waitFor(route, /you said "listen \[audio audio\/ogg, 31 bytes\]"/);
  });

  it("tell the user how to enable them otherwise", async () => {
    const { platform, route } = await setup({});
    await platform.say(route, "", undefined, { files: [voiceNote] });
    await platform.waitFor(route, /⚠️ Voice notes need a transcription server: set `voice\.transcription\.url`/);
    await new Promise((r) => setTimeout(r, 300));
    expect(platform.transcript(route)).not.toMatch(/you said/);
  });
});

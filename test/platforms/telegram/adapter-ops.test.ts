// Approvals, files, conflicts, webhooks, errors and secrets: the adapter against the fake Bot API.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PlatformError } from "../../../src/kernel/errors.js";
import type { InboundFile } from "../../../src/platforms/contract.js";
import type { TelegramAdapter } from "../../../src/platforms/telegram/index.js";
import { CONFLICT_409, FakeBotApi } from "../../fakes/telegram/fake-bot-api.js";
import { groupChat, privateChat, user } from "../../fakes/telegram/fake-chats.js";
import { startOnFreePort } from "../../support/free-port.js";
import { FAST_TUNING, makeAdapter, RecordingCore, sleep, waitFor } from "./helpers.js";

const alice = user(111, "Alice", "alice");
const stranger = user(999, "Mallory");

let fake: FakeBotApi;
let adapters: TelegramAdapter[];
let core: RecordingCore;

beforeEach(async () => {
  fake = await FakeBotApi.start();
  core = new RecordingCore(["telegram:111"]);
  adapters = [];
});

afterEach(async () => {
  await Promise.all(adapters.map((adapter) => adapter.stop()));
  await fake.close();
  expect(core.logText()).not.toContain(fake.token);
});

async function started(config: Parameters<typeof makeAdapter>[1] = {}, tuning = FAST_TUNING, withCore = core) {
  const made = await makeAdapter(fake, config, tuning);
  adapters.push(made.adapter);
  await made.adapter.start(withCore);
  return made;
}

describe("approvals by button", () => {
  it("passes presses to the core and answers the presser; a stranger gets an alert", async () => {
    const { adapter } = await started();
    const group = groupChat(-100321);
    const ref = await adapter.send("telegram:-100321", {
      text: "**Run** `npm test`?",
      kind: "approval",
      buttons: [
        [
          { id: "ap_1:allow", label: "Allow once", style: "primary" },
          { id: "ap_1:reject", label: "Reject", style: "danger" },
        ],
      ],
    });
    const [request] = fake.sentTo(-100321);
    expect(request.replyMarkup?.inline_keyboard).toEqual([
      [
        { text: "Allow once", callback_data: "ap_1:allow" },
        { text: "Reject", callback_data: "ap_1:reject" },
      ],
    ]);
    fake.userSends({ chat: group, from: stranger, text: "hi" }); // makes the chat known to the fake

    fake.userPresses(stranger, request, "ap_1:allow");
    await waitFor(() => fake.callsOf("answerCallbackQuery").length === 1, "the stranger's answer");
    expect(fake.callsOf("answerCallbackQuery")[0].params).toMatchObject({ show_alert: true, text: expect.stringContaining("telegram:999") });

    fake.userPresses(alice, request, "ap_1:allow");
    await waitFor(() => fake.callsOf("answerCallbackQuery").length === 2, "alice's answer");
    expect(fake.callsOf("answerCallbackQuery")[1].params).toMatchObject({ show_alert: false, text: "Allowed once" });
    expect(core.presses.map((p) => [p.route, p.user.id, p.actionId])).toEqual([
      ["telegram:-100321", "telegram:999", "ap_1:allow"],
      ["telegram:-100321", "telegram:111", "ap_1:allow"],
    ]);

    // The core shows the decision by editing the request without buttons: the keyboard goes away.
    await adapter.edit("telegram:-100321", ref, { text: "**Run** `npm test`? — Allowed once by @alice" });
    expect(fake.sentTo(-100321)[0]).toMatchObject({ text: "Run npm test? — Allowed once by @alice", replyMarkup: undefined });
  });

  it("refuses a button id over Telegram's 64 bytes with a typed error", async () => {
    const { adapter } = await started();
    await expect(adapter.send("telegram:111", { text: "x", buttons: [[{ id: "x".repeat(65), label: "too long" }]] })).rejects.toBeInstanceOf(PlatformError);
  });
});

/** What the core would do with a file descriptor: read it to the end. */
async function contentOf(file: InboundFile): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of await file.fetch(AbortSignal.timeout(5000))) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe("inbound files", () => {
  it("hands a document over as a descriptor: nothing is downloaded until the core fetches it", async () => {
    await started();
    const file = fake.addFile("col1,col2\n1,2\n");
    fake.userSends({ chat: privateChat(alice), from: alice, text: "summarise this", document: { ...file, file_name: "data.csv", mime_type: "text/csv" } });
    const inbound = await waitFor(() => core.messages[0], "the document message");
    expect(inbound.text).toBe("summarise this");
    expect(inbound.files).toHaveLength(1);
    const [received] = inbound.files!;
    expect(received).toMatchObject({ name: "data.csv", mimeType: "text/csv", size: 14 });
    expect(fake.callsOf("getFile")).toHaveLength(0);
    expect(fake.fileDownloads).toBe(0);
    expect((await contentOf(received)).toString()).toBe("col1,col2\n1,2\n");
    expect(fake.fileDownloads).toBe(1);
  });

  it("reads a file a --local Bot API server names by its path on disk", async () => {
    await started();
    fake.localFileDir = await mkdtemp(path.join(tmpdir(), "fake-bot-api-files-"));
    try {
      const file = fake.addFile("local bytes");
      fake.userSends({ chat: privateChat(alice), from: alice, document: { ...file, file_name: "local.txt" } });
      const inbound = await waitFor(() => core.messages[0], "the message");
      expect((await contentOf(inbound.files![0])).toString()).toBe("local bytes");
    } finally {
      await rm(fake.localFileDir, { recursive: true, force: true });
    }
  });

  it("offers the largest size of a photo as an image", async () => {
    await started();
    const small = fake.addFile(Buffer.alloc(100, 1));
    const large = fake.addFile(Buffer.alloc(5000, 2));
    fake.userSends({
      chat: privateChat(alice),
      from: alice,
      photo: [
        { ...small, width: 90, height: 90 },
        { ...large, width: 1280, height: 1280 },
      ],
    });
    const inbound = await waitFor(() => core.messages[0], "the photo message");
    expect(inbound.text).toBe("");
    expect(inbound.files).toHaveLength(1);
    expect(inbound.files![0]).toMatchObject({ mimeType: "image/jpeg", size: 5000 });
    expect((await contentOf(inbound.files![0])).equals(Buffer.alloc(5000, 2))).toBe(true);
    expect(fake.callsOf("getFile").map((call) => call.params.file_id)).toEqual([large.file_id]);
  });
});

describe("409 Conflict", () => {
  it("is reported once with a hint, retried with growing backoff, and polling recovers", async () => {
    fake.failNext("getUpdates", CONFLICT_409, 4);
    await started();
    await waitFor(() => fake.callsOf("getUpdates").length >= 5, "polling past the conflict");
    const errors = core.logs.filter((line) => line.level === "error");
    expect(errors).toHaveLength(1);
    expect(errors[0].msg).toContain("409 Conflict");
    expect(JSON.stringify(errors[0].obj)).toContain("hint");
    const gaps = fake
      .callsOf("getUpdates")
      .slice(0, 5)
      .map((call, i, all) => (i === 0 ? 0 : call.at - all[i - 1].at))
      .slice(1);
    expect(gaps[0]).toBeGreaterThanOrEqual(40);
    expect(gaps[3]).toBeGreaterThan(gaps[0]);
    fake.userSends({ chat: privateChat(alice), from: alice, text: "still there?" });
    await waitFor(() => core.messages[0]?.text === "still there?", "a message after the conflict");
    expect(core.logs.some((line) => String(line.obj).includes("polling resumed"))).toBe(true);
  });

  it("two Batons polling one token both keep running and neither crash-loops", async () => {
    const otherCore = new RecordingCore();
    await started();
    await started({}, FAST_TUNING, otherCore);
    await sleep(1200);
    const polls = fake.callsOf("getUpdates").length;
    expect(polls).toBeLessThan(60); // backoff, not a tight loop
    // Logged once a conflicting poll has come back, which a busy machine can delay past the 1.2 s.
    await waitFor(() => [...core.logs, ...otherCore.logs].some((line) => line.level === "error" && String(line.msg).includes("409")), "a logged 409 conflict");
    await adapters[1].stop();
    fake.userSends({ chat: privateChat(alice), from: alice, text: "who answers?" });
    await waitFor(() => core.messages[0]?.text === "who answers?", "the remaining poller to get the message", 5000);
  });
});

describe("webhook mode", () => {
  it("registers the webhook and accepts only updates with the secret token", async () => {
    const webhookAt = (port: number) => ({ url: "https://bot.example.com/telegram/hook", listen: `127.0.0.1:${port}`, secret_token: "s3cret-value" });
    const port = await startOnFreePort(async (port) => (await started({ mode: "webhook", webhook: webhookAt(port) }), port));
    const webhook = webhookAt(port);
    expect(fake.callsOf("setWebhook")[0].params).toMatchObject({ url: webhook.url, secret_token: "s3cret-value" });
    expect(fake.callsOf("getUpdates")).toHaveLength(0);
    const update = { update_id: 1, message: { message_id: 5, date: 0, chat: { id: 111, type: "private" }, from: alice, text: "via webhook" } };
    const post = (secret?: string) =>
      fetch(`http://127.0.0.1:${port}/telegram/hook`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(secret ? { "x-telegram-bot-api-secret-token": secret } : {}) },
        body: JSON.stringify(update),
      });
    expect((await post()).status).toBe(401);
    expect((await post("wrong")).status).toBe(401);
    expect((await post("s3cret-value")).status).toBe(200);
    const inbound = await waitFor(() => core.messages[0], "the webhook update");
    expect(inbound).toMatchObject({ route: "telegram:111", text: "via webhook" });
    expect(core.messages).toHaveLength(1);
  });
});

describe("errors", () => {
  it("rejects with a network PlatformError that does not contain the token when Telegram is unreachable", async () => {
    const { adapter } = await makeAdapter(fake, { api_root: "http://127.0.0.1:9" });
    const failure = await adapter.start(core).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PlatformError);
    expect((failure as PlatformError).reason).toBe("network");
    // The reason reaches the log's detail (fetch's "fetch failed" carries it as its cause).
    expect((failure as Error).message).toContain("ECONNREFUSED");
    expect(`${(failure as Error).message} ${(failure as PlatformError).userMessage}`).not.toContain(fake.token.split(":")[1]);
  });

  it("reports a refusal to send (bot blocked) as refused, without retrying as plain text", async () => {
    const { adapter } = await started();
    fake.failNext("sendMessage", { error_code: 403, description: "Forbidden: bot was blocked by the user" });
    const failure = await adapter.send("telegram:111", { text: "hello" }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PlatformError);
    expect(failure).toMatchObject({ reason: "refused" });
    expect((failure as PlatformError).userMessage).toContain("403");
    expect(fake.callsOf("sendMessage")).toHaveLength(1);
  });

  it("rejects a bad token as refused", async () => {
    const { adapter } = await makeAdapter(fake, { token: "123:wrong" });
    await expect(adapter.start(core)).rejects.toMatchObject({ reason: "refused" });
  });
});

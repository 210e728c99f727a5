// Telegram runs the platform contract against the fake Bot API (test/fakes/telegram).
import { telegramConfigSchema } from "../../src/platforms/telegram/config.js";
import { TelegramAdapter, TELEGRAM_PACING } from "../../src/platforms/telegram/adapter.js";
import { ENTITIES_400, FakeBotApi, tooManyRequests, type ScriptedError } from "../fakes/telegram/fake-bot-api.js";
import { groupChat, privateChat, user } from "../fakes/telegram/fake-chats.js";
import { runAdapterContract, type ContractDriver, type ScriptedFailure, type Where } from "./contract.js";

const ALICE = user(111, "Alice", "alice");
const MALLORY = user(999, "Mallory", "mallory");
const GROUP = groupChat(-100500, "team");
const METHOD = { send: "sendMessage", edit: "editMessageText" } as const;

function telegramError(failure: ScriptedFailure): ScriptedError {
  if (failure.kind === "rate_limited") return tooManyRequests(Math.ceil(failure.retryAfterMs / 1000));
  if (failure.kind === "formatting") return ENTITIES_400;
  return { error_code: 400, description: "Bad Request: message to edit not found" };
}

runAdapterContract("telegram", async (): Promise<ContractDriver> => {
  const fake = await FakeBotApi.start();
  const config = telegramConfigSchema.parse({ token: fake.token, api_root: fake.apiRoot });
  const adapter = new TelegramAdapter("telegram", config, { dataDir: "/nonexistent" }, { pacing: TELEGRAM_PACING, poller: { pollTimeoutSeconds: 1, initialBackoffMs: 50, maxBackoffMs: 400 } });
  const chats = { direct: privateChat(ALICE), group: GROUP, strangerDirect: privateChat(MALLORY) };
  const shown = (where: Where) => fake.sentTo(chats[where].id).map((m) => ({ id: String(m.messageId), text: m.text, buttons: (m.replyMarkup?.inline_keyboard ?? []).flat().map((b) => b.text) }));
  return {
    adapter,
    allowedId: "telegram:111",
    visibleLimit: 4096,
    features: { remoteFailures: true, strangers: true, groups: true, files: true },
    route: (where) => `telegram:${chats[where].id}`,
    async userSays(where, text, options = {}) {
      const from = options.stranger ? MALLORY : ALICE;
      const body = options.mention ? `@${fake.bot.username} ${text}` : text;
      const file = options.files?.[0];
      // An OGG voice recording is what Telegram's voice button sends.
      const voice = file?.mimeType === "audio/ogg" ? { ...fake.addFile(file.data), duration: 2, mime_type: "audio/ogg" } : undefined;
      const document = file && !voice ? { ...fake.addFile(file.data), file_name: file.name, mime_type: file.mimeType } : undefined;
      fake.userSends({ chat: chats[where], from, text: body, document, voice });
    },
    shown,
    async press(where, message, label, options = {}) {
      const botMessage = fake.sentTo(chats[where].id).find((m) => String(m.messageId) === message.id)!;
      const data = botMessage.replyMarkup!.inline_keyboard.flat().find((b) => b.text === label)!.callback_data;
      const queryId = fake.userPresses(options.stranger ? MALLORY : ALICE, botMessage, data);
      for (;;) {
        const answer = fake.callsOf("answerCallbackQuery").find((c) => c.params.callback_query_id === queryId);
        if (answer) return { ok: !answer.params.show_alert, text: String(answer.params.text ?? "") };
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    failNext: (call, failure) => fake.failNext(METHOD[call], telegramError(failure)),
    rateRefusals: () => fake.floodRefusals,
    calls: () =>
      fake.calls
        .filter((c) => c.method === METHOD.send || c.method === METHOD.edit)
        .map((c) => ({
          call: c.method === METHOD.send ? "send" : "edit",
          at: c.at,
          failed: c.failed === true,
          text: String(c.params.text ?? ""),
          messageId: c.params.message_id === undefined ? undefined : String(c.params.message_id),
        })),
    activity: (where) => fake.callsOf("sendChatAction").filter((c) => c.params.chat_id === chats[where].id).length,
    fileDownloads: () => fake.fileDownloads,
    uploads: (where) => fake.sentTo(chats[where].id).flatMap((m) => (m.media ? [{ name: m.media.name, size: m.media.size, caption: m.text, data: m.media.data }] : [])),
    close: () => fake.close(),
  };
});

// A small, honest fake of the Telegram Bot API for tests, reached through grammy's `apiRoot`
// (`POST {apiRoot}/bot{token}/{method}`, JSON bodies) on 127.0.0.1 only.
//
// Covers (media in fake-media.ts: multipart bodies, sendPhoto, sendDocument with captions): getMe, deleteWebhook, setWebhook, getWebhookInfo, setMyCommands, long-polling getUpdates (held until an
// update arrives or `timeout` passes; offsets confirm updates; a second concurrent poller makes the
// held one fail with 409 as Telegram does), sendMessage, editMessageText (with "message is not
// modified" and keyboard removal when reply_markup is omitted), deleteMessage,
// answerCallbackQuery, sendChatAction, getChatAdministrators (from `chatAdmins`: the first one is
// the creator; a private chat and an unknown chat are refused as Telegram does), getFile + `GET {apiRoot}/file/bot{token}/{path}`. Text with
// parse_mode HTML is validated (supported tags, balance, entities) and the 4096-character limit is
// applied to the visible text. A wrong token gets 401. Scripted failures: `failNext(method, error)`
// answers the next calls with e.g. 429 + `parameters.retry_after`, 400 can't-parse-entities or 409;
// `dropNextDelivery()` cuts off the next getUpdates answer that carries updates (they come again).
// Users are simulated with `userSends` (entities for /commands and @mentions computed as Telegram
// does) and `userPresses` (a callback query on a bot message).
//
// Flood control as Telegram documents it (Bot FAQ): about one message a second per chat with short
// bursts, 20 a minute in a group, 30 a second for the bot; a call past them gets 429 with
// `parameters.retry_after` and is noted in `floodRefusals` (`flood = false` turns it off).
//
// Does not cover: sending media by
// file_id or URL, albums, MarkdownV2, inline mode, webhooks pushed by the fake, message entities
// returned on sent messages.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Update, User } from "grammy/types";
import { parseTelegramHtml } from "./telegram-html.js";
import { monotonicMs } from "../../../src/kernel/clock.js";
import { FakeChats, type BotMessage } from "./fake-chats.js";
import { mediaOf, readRequestParams } from "./fake-media.js";
import { FloodGate, type BurstRule, type FloodRefusal, type WindowRule } from "../flood.js";

export interface ApiCall {
  method: string;
  params: Record<string, any>;
  at: number;
  /** Answered with an error (scripted or real). */
  failed?: boolean;
  /** When the request reached the fake (monotonicMs, comparable across processes). */
  hrAt: number;
}

export interface ScriptedError {
  error_code: number;
  description: string;
  parameters?: { retry_after?: number };
}

export const CONFLICT_409: ScriptedError = { error_code: 409, description: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running" };
export const ENTITIES_400: ScriptedError = { error_code: 400, description: "Bad Request: can't parse entities: Can't find end tag corresponding to start tag \"b\"" };
export const tooManyRequests = (retryAfterSeconds: number): ScriptedError => ({
  error_code: 429,
  description: `Too Many Requests: retry after ${retryAfterSeconds}`,
  parameters: { retry_after: retryAfterSeconds },
});

const MAX_TEXT_CHARS = 4096;

/** Telegram's flood limits as the fake enforces them. */
export interface TelegramFlood {
  chat: BurstRule;
  group: WindowRule;
  bot: WindowRule;
}

/** As documented: ~1 a second per chat (a burst of three tolerated), 20 a minute per group, 30 a second in all. */
const TELEGRAM_FLOOD: TelegramFlood = {
  chat: { burst: 3, perSecond: 1 },
  group: { calls: 20, windowMs: 60_000 },
  bot: { calls: 30, windowMs: 1_000 },
};

/** Calls that post or change a message: the ones Telegram's flood limits count. */
const FLOOD_COUNTED = new Set(["sendMessage", "editMessageText", "deleteMessage", "sendPhoto", "sendDocument"]);
const KEEP_ALIVE_MS = 60_000;

class ApiFailure extends Error {
  constructor(readonly failure: ScriptedError) {
    super(failure.description);
  }
}
const badRequest = (description: string) => new ApiFailure({ error_code: 400, description: `Bad Request: ${description}` });

export class FakeBotApi extends FakeChats {
  readonly token = `${100000 + Math.floor(Math.random() * 900000)}:${randomBytes(24).toString("base64url")}`;
  readonly calls: ApiCall[] = [];
  /** Files served from the file endpoint. */
  fileDownloads = 0;
  private server?: Server;
  private readonly failures = new Map<string, ScriptedError[]>();
  private readonly updates: Update[] = [];
  private nextUpdateId = 1;
  private heldPoll?: { response: ServerResponse; offset: number; timer: NodeJS.Timeout };
  private readonly files = new Map<string, { path: string; content: Buffer }>();
  apiRoot = "";
  webhookUrl = "";
  /** When each user message first left the fake in a getUpdates answer: message_id → monotonicMs. */
  readonly deliveredAt = new Map<number, number>();
  /** Set to a directory to act as a `--local` Bot API server for files added afterwards. */
  localFileDir?: string;
  /** getUpdates calls held for their whole `timeout` and answered empty, as Telegram does. */
  pollsTimedOut = 0;
  /** getUpdates answers cut off on the wire (see dropNextDelivery). */
  droppedDeliveries = 0;
  private deliveriesToDrop = 0;
  /** While set, the API cannot be reached: every connection is dropped before an answer (see goOffline). */
  private offline = false;
  /** The flood limits enforced, or false for none. */
  flood: TelegramFlood | false = TELEGRAM_FLOOD;
  /** Per group chat id, its administrators (the first is the creator), as getChatAdministrators answers. */
  readonly chatAdmins = new Map<number, User[]>();
  private readonly floodGate = new FloodGate();

  static async start(bot: Partial<User> = {}): Promise<FakeBotApi> {
    const fake = new FakeBotApi(bot);
    await fake.listen();
    return fake;
  }

  private async listen(): Promise<void> {
    const server = createServer((request, response) => void this.route(request, response));
    // Like Telegram's servers, idle keep-alive connections stay open a while: with Node's 5 s the
    // fake would close sockets Baton is about to reuse, and answer a busy bench with "socket hang up".
    server.keepAliveTimeout = KEEP_ALIVE_MS;
    server.on("connection", (socket) => {
      if (this.offline) socket.destroy();
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    this.apiRoot = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    if (this.heldPoll) clearTimeout(this.heldPoll.timer);
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /**
   * The API cannot be reached, as when the network or DNS is down: open connections (a held long
   * poll) are cut and new ones dropped before any answer, until comeBack().
   */
  goOffline(): void {
    this.offline = true;
    if (this.heldPoll) clearTimeout(this.heldPoll.timer);
    this.heldPoll = undefined;
    this.server?.closeAllConnections();
  }

  comeBack(): void {
    this.offline = false;
  }

  /** The next `times` calls of `method` fail with `error`. */
  failNext(method: string, error: ScriptedError, times = 1): void {
    const queue = this.failures.get(method) ?? [];
    for (let i = 0; i < times; i++) queue.push(error);
    this.failures.set(method, queue);
  }

  /**
   * The next getUpdates answer that carries updates is cut off instead (its connection destroyed,
   * as when the network drops mid-answer): the updates stay unconfirmed, so the next getUpdates
   * gets them again, as Telegram re-sends what a later `offset` has not confirmed.
   */
  dropNextDelivery(): void {
    this.deliveriesToDrop += 1;
  }

  callsOf(method: string): ApiCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  /** A file the user can send; returns what a Document/PhotoSize carries. */
  addFile(content: Buffer | string): { file_id: string; file_unique_id: string; file_size: number } {
    const fileId = `file-${randomBytes(6).toString("hex")}`;
    const buffer = Buffer.isBuffer(content) ? content : Buffer.from(content);
    // Like a self-hosted server started with --local: getFile answers an absolute path on disk.
    const localPath = this.localFileDir ? path.join(this.localFileDir, `${fileId}.bin`) : undefined;
    if (localPath) writeFileSync(localPath, buffer);
    this.files.set(fileId, { path: localPath ?? `documents/${fileId}.bin`, content: buffer });
    return { file_id: fileId, file_unique_id: `u${fileId}`, file_size: buffer.length };
  }

  protected pushUpdate(update: Omit<Update, "update_id">): Update {
    const full = { update_id: this.nextUpdateId++, ...update } as Update;
    this.updates.push(full);
    if (this.heldPoll) this.answerPoll();
    return full;
  }

  private answerPoll(): void {
    const held = this.heldPoll!;
    this.heldPoll = undefined;
    clearTimeout(held.timer);
    this.deliver(
      held.response,
      this.updates.filter((update) => update.update_id >= held.offset),
    );
  }

  /** Answers a getUpdates call, noting when each message went out on the wire. */
  private deliver(response: ServerResponse, updates: Update[]): void {
    if (updates.length > 0 && this.deliveriesToDrop > 0) {
      this.deliveriesToDrop -= 1;
      this.droppedDeliveries += 1;
      response.socket?.destroy();
      return;
    }
    const at = monotonicMs();
    for (const update of updates) {
      const messageId = update.message?.message_id;
      if (messageId !== undefined && !this.deliveredAt.has(messageId)) this.deliveredAt.set(messageId, at);
    }
    this.reply(response, { ok: true, result: updates });
  }

  private async route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const hrAt = monotonicMs();
    const url = new URL(request.url ?? "/", this.apiRoot);
    const fileMatch = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
    if (request.method === "GET" && fileMatch) return this.serveFile(fileMatch[1], fileMatch[2], response);
    const match = /^\/bot([^/]+)\/(\w+)$/.exec(url.pathname);
    if (!match) return this.reply(response, { ok: false, error_code: 404, description: "Not Found" });
    const [, token, method] = match;
    const params = await readRequestParams(request);
    const call: ApiCall = { method, params, at: Date.now(), hrAt };
    this.calls.push(call);
    if (token !== this.token) return this.reply(response, { ok: false, error_code: 401, description: "Unauthorized" });
    const scripted = this.failures.get(method)?.shift() ?? this.floodCheck(method, params, hrAt);
    if (scripted) {
      call.failed = true;
      return this.reply(response, { ok: false, ...scripted });
    }
    try {
      if (method === "getUpdates") return this.getUpdates(params, response);
      this.reply(response, { ok: true, result: this.handle(method, params) });
    } catch (error) {
      if (!(error instanceof ApiFailure)) throw error;
      call.failed = true;
      this.reply(response, { ok: false, ...error.failure });
    }
  }

  /** Calls refused for going past the flood limits. */
  get floodRefusals(): FloodRefusal[] {
    return this.floodGate.refusals;
  }

  private floodCheck(method: string, params: Record<string, any>, at: number): ScriptedError | undefined {
    if (!this.flood || !FLOOD_COUNTED.has(method)) return undefined;
    const chat = String(params.chat_id);
    const checks = [
      { name: "chat", rule: { kind: "burst" as const, ...this.flood.chat }, key: chat },
      { name: "bot", rule: { kind: "window" as const, ...this.flood.bot }, key: "" },
    ];
    if (Number(params.chat_id) < 0) checks.push({ name: "group", rule: { kind: "window", ...this.flood.group }, key: chat });
    const waitMs = this.floodGate.admit(checks, at);
    return waitMs === undefined ? undefined : tooManyRequests(Math.max(1, Math.ceil(waitMs / 1000)));
  }

  private getUpdates(params: Record<string, any>, response: ServerResponse): void {
    const offset = Number(params.offset ?? 0);
    // Confirmed updates are gone for good, as on Telegram.
    while (this.updates.length > 0 && this.updates[0].update_id < offset) this.updates.shift();
    if (this.heldPoll) {
      // Telegram ends the older long poll when a second one arrives.
      const older = this.heldPoll;
      this.heldPoll = undefined;
      clearTimeout(older.timer);
      this.reply(older.response, { ok: false, ...CONFLICT_409 });
    }
    const ready = this.updates.filter((update) => update.update_id >= offset).slice(0, Number(params.limit ?? 100));
    const timeoutMs = Number(params.timeout ?? 0) * 1000;
    if (ready.length > 0 || timeoutMs === 0) {
      this.deliver(response, ready);
      return;
    }
    const timer = setTimeout(() => {
      if (this.heldPoll?.response === response) this.heldPoll = undefined;
      this.pollsTimedOut += 1;
      this.reply(response, { ok: true, result: [] });
    }, timeoutMs);
    this.heldPoll = { response, offset, timer };
    response.on("close", () => {
      if (this.heldPoll?.response === response) {
        clearTimeout(timer);
        this.heldPoll = undefined;
      }
    });
  }

  private handle(method: string, params: Record<string, any>): unknown {
    switch (method) {
      case "getMe":
        return this.bot;
      case "getWebhookInfo":
        return { url: this.webhookUrl, has_custom_certificate: false, pending_update_count: this.updates.length };
      case "deleteWebhook":
      case "setWebhook":
        this.webhookUrl = method === "setWebhook" ? String(params.url) : "";
        return true;
      case "setMyCommands":
        if (method === "setMyCommands" && !(params.commands ?? []).every((c: any) => /^[a-z0-9_]{1,32}$/.test(c.command) && c.description)) throw badRequest("BOT_COMMAND_INVALID");
        return true;
      case "sendChatAction":
        if (!["typing", "upload_document"].includes(params.action)) throw badRequest("wrong parameter action in request");
        return true;
      case "answerCallbackQuery":
        if (String(params.text ?? "").length > 200) throw badRequest("MESSAGE_TOO_LONG");
        return true;
      case "sendMessage":
        return this.recordBotMessage(params.chat_id, params.message_thread_id, this.visibleText(params), params.reply_markup);
      case "sendPhoto":
      case "sendDocument": {
        const sent = mediaOf(method, params);
        if (typeof sent === "string") throw badRequest(sent);
        return this.recordBotMessage(params.chat_id, params.message_thread_id === undefined ? undefined : Number(params.message_thread_id), sent.caption, params.reply_markup, sent.media);
      }
      case "editMessageText":
        return this.editBotMessage(params.chat_id, params.message_id, this.visibleText(params), params.reply_markup);
      case "deleteMessage":
        if (!this.removeBotMessage(params.chat_id, params.message_id)) throw badRequest("message to delete not found");
        return true;
      case "getChatAdministrators": {
        const chatId = Number(params.chat_id);
        if (chatId > 0) throw badRequest("there are no administrators in the private chat");
        const admins = this.chatAdmins.get(chatId);
        if (!admins) throw badRequest("chat not found");
        return admins.map((admin, i) => (i === 0 ? { status: "creator", user: admin, is_anonymous: false } : { status: "administrator", user: admin, can_be_edited: false, is_anonymous: false }));
      }
      case "getFile": {
        const file = this.files.get(params.file_id);
        if (!file) throw badRequest("invalid file_id");
        return { file_id: params.file_id, file_unique_id: `u${params.file_id}`, file_size: file.content.length, file_path: file.path };
      }
      default:
        throw new ApiFailure({ error_code: 404, description: "Not Found: method not found" });
    }
  }

  private visibleText(params: Record<string, any>): string {
    const raw = String(params.text ?? "");
    let text = raw;
    if (params.parse_mode === "HTML") {
      const parsed = parseTelegramHtml(raw);
      if (!parsed.ok) throw badRequest(parsed.error.replace(/^Bad Request: /, ""));
      text = parsed.text;
    } else if (params.parse_mode !== undefined) {
      throw badRequest(`unsupported parse_mode ${params.parse_mode}`);
    }
    if (text.trim().length === 0) throw badRequest("message text is empty");
    if (text.length > MAX_TEXT_CHARS) throw badRequest("message is too long");
    return text;
  }

  protected editFailure(reason: "missing" | "unchanged"): Error {
    return reason === "missing"
      ? badRequest("message to edit not found")
      : badRequest("message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message");
  }

  private serveFile(token: string, filePath: string, response: ServerResponse): void {
    const file = [...this.files.values()].find((candidate) => candidate.path === filePath);
    if (token !== this.token || !file) return void response.writeHead(404).end();
    this.fileDownloads++;
    response.writeHead(200, { "content-type": "application/octet-stream", "content-length": file.content.length }).end(file.content);
  }

  private reply(response: ServerResponse, payload: Record<string, unknown>): void {
    if (response.writableEnded || response.destroyed) return;
    const status = payload.ok ? 200 : Number(payload.error_code ?? 500);
    response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(payload));
  }
}

export type { BotMessage };

// A small, honest fake of Slack for tests: the Web API methods Baton calls, over real HTTP on
// 127.0.0.1, plus the Socket Mode WebSocket (socket.ts). Reach it with
// `clientOptions.slackApiUrl = fake.apiUrl` (`http://127.0.0.1:PORT/api/`).
//
// Covers: auth.test (with the `x-oauth-scopes` header), apps.connections.open (app token only),
// chat.postMessage / chat.update / chat.delete / chat.postEphemeral (checks the token, `text` or
// `blocks` present, section text ≤ 3000, ≤ 50 blocks, button labels ≤ 75, known ts for updates),
// reactions.add / reactions.remove (already_reacted / no_reaction), assistant.threads.setStatus
// (missing_scope unless granted), conversations.replies (the thread from the messages the fake saw:
// people's messages sent as events, the bot's posts; no pagination), usergroups.users.list (from
// `userGroups`; missing_scope without usergroups:read, no_such_subteam for an unknown group), file downloads at /files/<id> (Bearer bot token required).
// Injected failures: `rateLimitNext(method, seconds)` answers HTTP 429 + Retry-After +
// `{ok:false,error:"ratelimited"}`; `failNext(method, error)` answers `{ok:false,error}`.
// Rate limits as Slack documents them, answered the same way and noted in `floodRefusals`
// (`flood = false` turns them off): chat.postMessage about one a second per channel with short
// bursts, chat.update Tier 3 (50 a minute for the workspace).
// Uploads (uploads.ts): files.getUploadURLExternal, the upload URL, files.completeUploadExternal.
// Not covered: pagination, other conversations.* methods, users.*, the old files.upload, Enterprise Grid,
// the tiers of the other methods, message formatting validation beyond lengths.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { FakeSocketMode } from "./socket.js";
import { readParams, validateMessage, visibleText } from "./wire.js";
import { FakeSlackUploads, type FakeUpload } from "./uploads.js";
import { FloodGate, type BurstRule, type FloodRefusal, type WindowRule } from "../flood.js";

/** Slack's limits as the fake enforces them. */
export interface SlackFlood {
  /** chat.postMessage per channel. */
  post: BurstRule;
  /** chat.update for the workspace. */
  update: WindowRule;
}

/** chat.postMessage: "1 message per second to a specific channel", short bursts allowed; chat.update: Tier 3, 50 a minute. */
const SLACK_FLOOD: SlackFlood = { post: { burst: 3, perSecond: 1 }, update: { calls: 50, windowMs: 60_000 } };

export interface FakeSlackOptions {
  botToken?: string;
  appToken?: string;
  teamId?: string;
  teamName?: string;
  botUserId?: string;
  botName?: string;
  scopes?: string[];
}

export interface RecordedCall {
  method: string;
  params: Record<string, any>;
  /** Epoch ms when the request arrived. */
  at: number;
  /** Answer given: "ok", an error code, or "ratelimited". */
  outcome: string;
}

export interface FakeMessage {
  channel: string;
  ts: string;
  thread_ts?: string;
  text?: string;
  blocks?: any[];
  user: string;
  deleted?: boolean;
  /** Files shared with the message (uploads completed into this conversation). */
  files?: FakeUpload[];
  /** The visible text after every post and update, in order (section texts joined, else `text`). */
  history: string[];
}

export class FakeSlack {
  readonly options: Required<FakeSlackOptions>;
  readonly socket = new FakeSocketMode();
  readonly calls: RecordedCall[] = [];
  readonly messages: FakeMessage[] = [];
  readonly ephemerals: Array<{ channel: string; user: string; text?: string; blocks?: any[]; thread_ts?: string }> = [];
  readonly reactions = new Set<string>();
  /** User groups of the workspace (S… id → member user ids), as usergroups.users.list answers. */
  readonly userGroups = new Map<string, string[]>();
  private readonly injected = new Map<string, Array<{ kind: "ratelimit"; seconds: number } | { kind: "error"; error: string }>>();
  private readonly files = new Map<string, Buffer>();
  /** The rate limits enforced, or false for none. */
  flood: SlackFlood | false = SLACK_FLOOD;
  private readonly floodGate = new FloodGate();
  readonly uploads = new FakeSlackUploads(() => this.baseUrl);
  private server?: Server;
  private port = 0;
  private tsCounter = 0;
  private eventCounter = 0;

  constructor(options: FakeSlackOptions = {}) {
    this.options = {
      botToken: options.botToken ?? "xoxb-fake-bot-token",
      appToken: options.appToken ?? "xapp-fake-app-token",
      teamId: options.teamId ?? "T0FAKE",
      teamName: options.teamName ?? "Fake Team",
      botUserId: options.botUserId ?? "U0BATON",
      botName: options.botName ?? "baton",
      scopes: options.scopes ?? ["app_mentions:read", "chat:write", "channels:history", "groups:history", "im:history", "mpim:history", "commands", "reactions:write", "files:read", "files:write"],
    };
  }

  get apiUrl(): string {
    return `http://127.0.0.1:${this.port}/api/`;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.onRequest(req, res));
    this.server.on("upgrade", (req, socket, head) => {
      if ((req.url ?? "").startsWith("/socket")) this.socket.handleUpgrade(req, socket, head);
      else socket.destroy();
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    await this.socket.close();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  // ── test controls ────────────────────────────────────────────────────────────────────────

  rateLimitNext(method: string, seconds: number): void {
    this.inject(method, { kind: "ratelimit", seconds });
  }

  failNext(method: string, error: string): void {
    this.inject(method, { kind: "error", error });
  }

  addFile(id: string, content: Buffer | string): string {
    this.files.set(id, Buffer.from(content));
    return `${this.baseUrl}/files/${id}`;
  }

  /** Calls refused for going past the rate limits (not the injected ones). */
  get floodRefusals(): FloodRefusal[] {
    return this.floodGate.refusals;
  }

  callsTo(method: string): RecordedCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  /** Messages the bot posted in a channel (optionally one thread), in order. */
  botMessages(channel: string, threadTs?: string): FakeMessage[] {
    return this.messages.filter((m) => m.user === this.options.botUserId && m.channel === channel && !m.deleted && (threadTs === undefined || m.thread_ts === threadTs));
  }

  /** A timestamp like Slack's, unique and increasing. */
  nextTs(): string {
    this.tsCounter += 1;
    return `${1_700_000_000 + this.tsCounter}.${String(this.tsCounter).padStart(6, "0")}`;
  }

  /** Delivers an Events API event over the socket; resolves with the ack. */
  event(event: Record<string, unknown>): { envelopeId: string; eventId: string; payload: Record<string, unknown>; acked: Promise<Record<string, unknown>> } {
    this.eventCounter += 1;
    const eventId = `Ev${String(this.eventCounter).padStart(8, "0")}`;
    const payload = {
      token: "verification-token-unused",
      team_id: this.options.teamId,
      api_app_id: "A0FAKE",
      event: { event_ts: event.ts, ...event },
      type: "event_callback",
      event_id: eventId,
      event_time: Math.floor(Date.now() / 1000),
    };
    // People's messages become part of the channel history (conversations.replies reads it).
    const { channel, ts, user, thread_ts, text } = event as Record<string, string | undefined>;
    if (channel && ts && user && !this.messages.some((m) => m.channel === channel && m.ts === ts)) {
      this.messages.push({ channel, ts, thread_ts, text, user, history: [text ?? ""] });
    }
    const { envelopeId, acked } = this.socket.deliver("events_api", payload);
    return { envelopeId, eventId, payload, acked };
  }

  slashCommand(fields: { user_id: string; channel_id: string; text: string; command?: string }): Promise<Record<string, unknown>> {
    return this.socket.deliver("slash_commands", {
      token: "verification-token-unused",
      team_id: this.options.teamId,
      team_domain: "fake",
      channel_name: "general",
      user_name: fields.user_id.toLowerCase(),
      command: fields.command ?? "/baton",
      response_url: `${this.baseUrl}/response/${this.nextTs()}`,
      trigger_id: `trig.${this.nextTs()}`,
      api_app_id: "A0FAKE",
      ...fields,
    }).acked;
  }

  /** A press on a button of a message the bot posted. */
  pressButton(fields: { user_id: string; message: FakeMessage; action_id: string }): Promise<Record<string, unknown>> {
    const { message } = fields;
    const button = (message.blocks ?? []).flatMap((b: any) => b.elements ?? []).find((e: any) => e.action_id === fields.action_id);
    if (!button) throw new Error(`no button ${fields.action_id} on message ${message.ts}`);
    return this.socket.deliver("interactive", {
      type: "block_actions",
      user: { id: fields.user_id, username: fields.user_id.toLowerCase(), name: fields.user_id.toLowerCase(), team_id: this.options.teamId },
      api_app_id: "A0FAKE",
      token: "verification-token-unused",
      container: { type: "message", message_ts: message.ts, channel_id: message.channel, is_ephemeral: false, thread_ts: message.thread_ts },
      trigger_id: `trig.${this.nextTs()}`,
      team: { id: this.options.teamId, domain: "fake" },
      channel: { id: message.channel, name: "general" },
      message: { type: "message", ts: message.ts, thread_ts: message.thread_ts, text: message.text, blocks: message.blocks, user: this.options.botUserId },
      response_url: `${this.baseUrl}/response/${this.nextTs()}`,
      actions: [{ action_id: button.action_id, block_id: "b", value: button.value, type: "button", text: button.text, action_ts: String(Date.now() / 1000) }],
    }).acked;
  }

  // ── HTTP ─────────────────────────────────────────────────────────────────────────────────

  private inject(method: string, failure: { kind: "ratelimit"; seconds: number } | { kind: "error"; error: string }): void {
    const list = this.injected.get(method) ?? [];
    list.push(failure);
    this.injected.set(method, list);
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.baseUrl);
    if (req.method === "GET" && url.pathname.startsWith("/files/")) return this.serveFile(req, res, url.pathname.slice("/files/".length));
    if (url.pathname.startsWith("/upload/")) return this.uploads.receive(req, res, url.pathname.slice("/upload/".length));
    if (!url.pathname.startsWith("/api/")) return void res.writeHead(404).end();
    const method = url.pathname.slice("/api/".length);
    const params = await readParams(req);
    const record: RecordedCall = { method, params, at: Date.now(), outcome: "ok" };
    this.calls.push(record);

    const token = (req.headers.authorization ?? "").replace(/^Bearer /, "");
    const injected = this.injected.get(method)?.shift() ?? this.floodCheck(method, params, token);
    if (injected?.kind === "ratelimit") {
      record.outcome = "ratelimited";
      res.writeHead(429, { "content-type": "application/json", "retry-after": String(injected.seconds) });
      return void res.end(JSON.stringify({ ok: false, error: "ratelimited" }));
    }
    const answer = injected?.kind === "error" ? { ok: false, error: injected.error } : this.answer(method, params, token);
    record.outcome = answer.ok ? "ok" : String(answer.error);
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (token === this.options.botToken) headers["x-oauth-scopes"] = this.options.scopes.join(",");
    res.writeHead(200, headers).end(JSON.stringify(answer));
  }

  /** A call past Slack's limits is answered as Slack does: 429 with Retry-After (whole seconds). */
  private floodCheck(method: string, params: Record<string, any>, token: string): { kind: "ratelimit"; seconds: number } | undefined {
    if (!this.flood || token !== this.options.botToken) return undefined;
    const now = Date.now();
    let waitMs: number | undefined;
    if (method === "chat.postMessage") waitMs = this.floodGate.admit([{ name: "chat.postMessage", rule: { kind: "burst", ...this.flood.post }, key: String(params.channel) }], now);
    else if (method === "chat.update") waitMs = this.floodGate.admit([{ name: "chat.update", rule: { kind: "window", ...this.flood.update }, key: "" }], now);
    return waitMs === undefined ? undefined : { kind: "ratelimit", seconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  private answer(method: string, params: Record<string, any>, token: string): Record<string, unknown> {
    if (method === "apps.connections.open") {
      if (token !== this.options.appToken) return { ok: false, error: token.startsWith("xoxb-") ? "not_allowed_token_type" : "invalid_auth" };
      return { ok: true, url: `ws://127.0.0.1:${this.port}/socket?ticket=${this.nextTs()}` };
    }
    if (token !== this.options.botToken) return { ok: false, error: token.startsWith("xapp-") ? "not_allowed_token_type" : "invalid_auth" };
    const o = this.options;
    switch (method) {
      case "auth.test":
        return { ok: true, url: "https://fake.slack.com/", team: o.teamName, user: o.botName, team_id: o.teamId, user_id: o.botUserId, bot_id: "B0BATON", is_enterprise_install: false };
      case "chat.postMessage": {
        const invalid = validateMessage(params);
        if (invalid) return { ok: false, error: invalid };
        const message: FakeMessage = { channel: params.channel, ts: this.nextTs(), thread_ts: params.thread_ts, text: params.text, blocks: params.blocks, user: o.botUserId, history: [] };
        message.history.push(visibleText(message));
        this.messages.push(message);
        return { ok: true, channel: params.channel, ts: message.ts, message: { ...message, type: "message" } };
      }
      case "chat.update": {
        const message = this.messages.find((m) => m.channel === params.channel && m.ts === params.ts && !m.deleted);
        if (!message) return { ok: false, error: "message_not_found" };
        const invalid = validateMessage(params);
        if (invalid) return { ok: false, error: invalid };
        message.text = params.text;
        if (params.blocks !== undefined) message.blocks = params.blocks;
        message.history.push(visibleText(message));
        return { ok: true, channel: params.channel, ts: params.ts, text: params.text };
      }
      case "chat.delete": {
        const message = this.messages.find((m) => m.channel === params.channel && m.ts === params.ts && !m.deleted);
        if (!message) return { ok: false, error: "message_not_found" };
        message.deleted = true;
        return { ok: true, channel: params.channel, ts: params.ts };
      }
      case "chat.postEphemeral": {
        if (!params.user) return { ok: false, error: "user_not_found" };
        const invalid = validateMessage(params);
        if (invalid) return { ok: false, error: invalid };
        this.ephemerals.push({ channel: params.channel, user: params.user, text: params.text, blocks: params.blocks, thread_ts: params.thread_ts });
        return { ok: true, message_ts: this.nextTs() };
      }
      case "reactions.add":
      case "reactions.remove": {
        const key = `${params.channel}:${params.timestamp}:${params.name}`;
        if (method === "reactions.add") {
          if (this.reactions.has(key)) return { ok: false, error: "already_reacted" };
          this.reactions.add(key);
        } else if (!this.reactions.delete(key)) return { ok: false, error: "no_reaction" };
        return { ok: true };
      }
      case "conversations.replies": {
        const thread = this.messages.filter((m) => m.channel === params.channel && !m.deleted && (m.ts === params.ts || m.thread_ts === params.ts)).sort((a, b) => Number(a.ts) - Number(b.ts));
        if (!thread.some((m) => m.ts === params.ts)) return { ok: false, error: "thread_not_found" };
        return {
          ok: true,
          has_more: false,
          messages: thread.map(({ channel: _c, history: _h, deleted: _d, ...m }) => ({ type: "message", ...m, ...(m.user === o.botUserId ? { bot_id: "B0BATON" } : {}) })),
        };
      }
      case "files.getUploadURLExternal":
        if (!o.scopes.includes("files:write")) return { ok: false, error: "missing_scope", needed: "files:write" };
        return this.uploads.getUploadURLExternal(params);
      case "files.completeUploadExternal": {
        // Shared files make a message of the bot's, with the comment as its text.
        const { answer, shared } = this.uploads.completeUploadExternal(params);
        const text: string | undefined = params.initial_comment;
        if (shared) this.messages.push({ channel: params.channel_id, ts: this.nextTs(), thread_ts: params.thread_ts, text, user: o.botUserId, files: shared, history: [text ?? ""] });
        return answer;
      }
      case "usergroups.users.list": {
        if (!o.scopes.includes("usergroups:read")) return { ok: false, error: "missing_scope", needed: "usergroups:read", provided: o.scopes.join(",") };
        const users = this.userGroups.get(String(params.usergroup));
        if (!users) return { ok: false, error: "no_such_subteam" };
        return { ok: true, users: [...users] };
      }
      case "assistant.threads.setStatus":
        if (!o.scopes.includes("assistant:write")) return { ok: false, error: "missing_scope", needed: "assistant:write" };
        return { ok: true };
      default:
        return { ok: false, error: "unknown_method" };
    }
  }

  private serveFile(req: IncomingMessage, res: ServerResponse, id: string): void {
    this.calls.push({ method: "GET /files", params: { id }, at: Date.now(), outcome: "ok" });
    if (req.headers.authorization !== `Bearer ${this.options.botToken}`) return void res.writeHead(403).end("forbidden");
    const content = this.files.get(id);
    if (!content) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(content.length) }).end(content);
  }
}

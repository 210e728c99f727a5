// A small, honest fake of a Matrix homeserver's client-server API on 127.0.0.1, for matrix-js-sdk
// (with Rust crypto) in tests. It speaks the real wire format (JSON bodies, `{errcode, error}`
// errors, Bearer tokens, `s<N>` sync tokens).
//
// Covers: /versions, password login + logout, whoami, devices, capabilities, pushrules, filters,
// account data, profile, createRoom, join/invite/leave, state, send with transaction-id dedupe,
// redactions, relations (edits `m.replace`, reactions, threads), single events, members, typing,
// receipts (accepted, not reported), long-polling /sync with `since`, authenticated media
// (upload at /_matrix/media/v3/upload, download at /_matrix/client/v1/media/download/…), and the
// store-and-forward key endpoints (see keys.ts). An event over 64 KiB is refused with 413
// M_TOO_LARGE, as Synapse does. `rateLimit()` answers the next matching requests with 429
// M_LIMIT_EXCEEDED + retry_after_ms (and a Retry-After header); `failNext()` with any other error;
// `dropHeldSyncs()` cuts the connections of the /sync calls being held.
// Every request is recorded in `calls` with its time; an endpoint it does not know gets 404
// M_UNRECOGNIZED and lands in `unknownCalls`.
//
// Does not cover: federation, room versions and auth rules beyond membership, power-level checks,
// server-side aggregation of relations, push, presence, search, /messages pagination beyond
// returning the whole timeline, URL previews, thumbnails, registration.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { HomeserverState, SERVER_NAME, randomId } from "./state.js";
import { buildSync } from "./sync.js";
import { MatrixError } from "./rooms.js";
import { Media, routeRequest, type RequestContext } from "./routes.js";

export interface RecordedCall {
  method: string;
  path: string;
  query: Record<string, string>;
  body: any;
  userId?: string;
  status: number;
  /** When the request arrived (ms since the epoch). */
  at: number;
}

export interface CallMatch {
  method?: string;
  path: RegExp;
  /** Only requests whose JSON body passes (e.g. an edit, by its `m.relates_to`). */
  body?: (body: any) => boolean;
}

export interface ScriptedError {
  /** 0 answers nothing: the connection is dropped, as when a homeserver goes away mid-request. */
  status: number;
  errcode: string;
  error?: string;
  retryAfterMs?: number;
}

interface FailureRule extends CallMatch {
  answer: ScriptedError;
  remaining: number;
}

/** The spec's limit on a whole event (Synapse answers 413 M_TOO_LARGE past it). */
const MAX_EVENT_BYTES = 65_536;

/** Longest a /sync is held by the fake whatever the client asks, so tests never hang on it. */
const MAX_SYNC_HOLD_MS = 30_000;

export class FakeHomeserver {
  readonly state = new HomeserverState();
  readonly calls: RecordedCall[] = [];
  readonly unknownCalls: RecordedCall[] = [];
  baseUrl = "";
  private server?: Server;
  private readonly failures: FailureRule[] = [];
  private readonly waiters = new Set<() => void>();
  private readonly heldSyncs = new Set<ServerResponse>();
  /** The longest a /sync was held (waiting for something new) before it was answered, in ms. */
  longestSyncHoldMs = 0;

  static async start(): Promise<FakeHomeserver> {
    const fake = new FakeHomeserver();
    const server = createServer((request, response) => void fake.handle(request, response));
    fake.server = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    fake.state.onChange = () => {
      for (const wake of [...fake.waiters]) wake();
    };
    return fake;
  }

  async stop(): Promise<void> {
    for (const wake of [...this.waiters]) wake();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  get serverName(): string {
    return SERVER_NAME;
  }

  /** Creates an account (password login works) and returns its user id. */
  register(localpart: string, password = randomId(12), displayName = localpart): { userId: string; password: string } {
    return { userId: this.state.addAccount(localpart, password, displayName).userId, password };
  }

  /** A logged-in device for a test user who talks over HTTP without a password login. */
  login(userId: string, deviceId?: string): { accessToken: string; deviceId: string } {
    const account = this.state.accounts.get(userId);
    if (!account) throw new Error(`no account ${userId}`);
    const device = this.state.addDevice(account, deviceId);
    return { accessToken: device.accessToken, deviceId: device.deviceId };
  }

  /** Stores bytes in the media repository as a user's upload would; returns the mxc:// URI. */
  upload(content: Buffer, contentType = "application/octet-stream", fileName?: string): string {
    const mediaId = randomId(24);
    this.state.media.set(mediaId, { content, contentType, fileName });
    return `mxc://${SERVER_NAME}/${mediaId}`;
  }

  /** Answers the next `times` requests matching `path` (and `method`) with 429 M_LIMIT_EXCEEDED. */
  rateLimit(path: RegExp, retryAfterMs: number, times = 1, method?: string): void {
    this.failNext({ path, method }, { status: 429, errcode: "M_LIMIT_EXCEEDED", error: "Too many requests", retryAfterMs }, times);
  }

  /** Destroys the connections of the /sync calls being held, as a homeserver (or a proxy) going away mid-poll does. */
  dropHeldSyncs(): number {
    const held = [...this.heldSyncs];
    for (const response of held) response.socket?.destroy();
    return held.length;
  }

  /** Answers the next `times` requests matching with this error instead of handling them. */
  failNext(match: CallMatch, answer: ScriptedError, times = 1): void {
    this.failures.push({ ...match, answer, remaining: times });
  }

  callsTo(path: RegExp, method?: string): RecordedCall[] {
    return this.calls.filter((c) => path.test(c.path) && (!method || c.method === method));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://fake");
    const raw = await readBody(request);
    const contentType = request.headers["content-type"] ?? "";
    let body: any;
    if (raw.length > 0 && contentType.includes("json")) {
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch {
        return this.reply(response, { method: request.method ?? "GET", path: url.pathname, query: {}, body: raw.toString(), status: 400, at: Date.now() }, 400, {
          errcode: "M_NOT_JSON",
          error: "Content not JSON.",
        });
      }
    }
    const ctx: RequestContext = { method: request.method ?? "GET", path: decodeURIComponent(url.pathname), query: Object.fromEntries(url.searchParams), body, raw, headers: request.headers };
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? ctx.query.access_token;
    const session = token ? this.state.tokens.get(token) : undefined;
    if (session && token) ctx.auth = { ...session, token };
    const call: RecordedCall = {
      method: ctx.method,
      path: ctx.path,
      query: ctx.query,
      body: body ?? (raw.length ? { bytes: raw.length } : undefined),
      userId: ctx.auth?.account.userId,
      status: 0,
      at: Date.now(),
    };

    const failure = this.failures.find((r) => r.remaining > 0 && r.path.test(ctx.path) && (!r.method || r.method === ctx.method) && (!r.body || r.body(body)));
    if (failure) {
      failure.remaining -= 1;
      const { status, errcode, error, retryAfterMs } = failure.answer;
      if (status === 0) {
        this.calls.push(call);
        response.socket?.destroy();
        return;
      }
      if (retryAfterMs !== undefined) response.setHeader("Retry-After", String(Math.ceil(retryAfterMs / 1000)));
      return this.reply(response, call, status, { errcode, error: error ?? errcode, ...(retryAfterMs !== undefined ? { retry_after_ms: retryAfterMs } : {}) });
    }
    if (ctx.method === "PUT" && /\/rooms\/[^/]+\/send\//.test(ctx.path) && raw.length > MAX_EVENT_BYTES) {
      return this.reply(response, call, 413, { errcode: "M_TOO_LARGE", error: "Event too large" });
    }
    try {
      if (/^\/_matrix\/client\/(v3|r0)\/sync$/.test(ctx.path)) return await this.sync(ctx, call, response);
      const answer = routeRequest(this.state, ctx);
      if (answer === undefined) {
        this.unknownCalls.push(call);
        return this.reply(response, call, 404, { errcode: "M_UNRECOGNIZED", error: `Unrecognized request: ${ctx.method} ${ctx.path}` });
      }
      if (answer instanceof Media) {
        call.status = 200;
        this.calls.push(call);
        response.writeHead(200, {
          "content-type": answer.contentType,
          "content-length": answer.content.length,
          ...(answer.fileName ? { "content-disposition": `attachment; filename="${answer.fileName}"` } : {}),
        });
        response.end(answer.content);
        return;
      }
      this.reply(response, call, 200, answer);
    } catch (error) {
      if (error instanceof MatrixError) return this.reply(response, call, error.status, { errcode: error.errcode, error: error.message, ...error.extra });
      this.reply(response, call, 500, { errcode: "M_UNKNOWN", error: String(error) });
    }
  }

  /** Long-poll: answers at once when something is new for this device, else waits for a change or the timeout. */
  private async sync(ctx: RequestContext, call: RecordedCall, response: ServerResponse): Promise<void> {
    if (!ctx.auth) throw new MatrixError(401, "M_MISSING_TOKEN", "Missing access token.");
    const since = ctx.query.since ? Number(ctx.query.since.replace(/^s/, "")) : undefined;
    const timeoutMs = Math.min(Number(ctx.query.timeout ?? 0), MAX_SYNC_HOLD_MS);
    const deadline = Date.now() + timeoutMs;
    let result = buildSync(this.state, ctx.auth.account, ctx.auth.device, since);
    this.heldSyncs.add(response);
    response.once("close", () => this.heldSyncs.delete(response));
    while (!result.hasContent && since !== undefined && Date.now() < deadline && this.server?.listening) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.waiters.delete(done);
          response.off("close", done);
          resolve();
        };
        const timer = setTimeout(done, deadline - Date.now());
        this.waiters.add(done);
        response.once("close", done);
      });
      if (response.destroyed) return;
      result = buildSync(this.state, ctx.auth.account, ctx.auth.device, since);
    }
    this.heldSyncs.delete(response);
    this.longestSyncHoldMs = Math.max(this.longestSyncHoldMs, Date.now() - (deadline - timeoutMs));
    this.reply(response, call, 200, result.body);
  }

  private reply(response: ServerResponse, call: RecordedCall, status: number, body: unknown): void {
    call.status = status;
    this.calls.push(call);
    if (response.destroyed) return;
    response.writeHead(status, { "content-type": "application/json" });
    response.end(JSON.stringify(body));
  }
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

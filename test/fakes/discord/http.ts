// The HTTP side of the Discord fake: a route table under `/api/v10`, the bot token checked as
// `Authorization: Bot <token>` (interaction callbacks and webhook routes take none, as on Discord),
// every call recorded, and rate limits as Discord answers them: `X-RateLimit-Limit / -Remaining /
// -Reset / -Reset-After / -Bucket / -Scope` on every answer, and on a 429 `Retry-After` (whole
// seconds, rounded up) plus `{message, retry_after, global}` (`X-RateLimit-Global: true` when global).
// Buckets: per route and major parameter (channel id, webhook token), each with its own limit per
// window; message routes default to 5 per 5 s as Discord's are; the rest are generous.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { createHash } from "node:crypto";
import type { ApiError } from "./validate.js";
import { boundaryOf, parseMultipart, type UploadedPart } from "../multipart.js";

export interface RecordedCall {
  method: string;
  /** The route as a template, e.g. `/channels/:channel/messages`. */
  route: string;
  path: string;
  params: Record<string, string>;
  query: Record<string, string>;
  body: any;
  /** Files of a multipart request (`files[n]` parts), beside its `payload_json` body. */
  files?: UploadedPart[];
  at: number;
  status: number;
  /** Discord's JSON error code when the answer was an error. */
  code?: number;
}

export interface Answer {
  status: number;
  body?: unknown;
}

export type Handler = (request: { params: Record<string, string>; query: Record<string, string>; body: any; files?: UploadedPart[] }) => Answer | ApiError | Promise<Answer | ApiError>;

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  names: string[];
  auth: boolean;
  handler: Handler;
}

export interface BucketLimit {
  limit: number;
  windowMs: number;
}

type Injected = { kind: "ratelimit"; seconds: number; global: boolean; scope: string } | { kind: "error"; status: number; code: number; message: string; errors?: Record<string, unknown> };

const API_PREFIX = "/api/v10";
const GENEROUS: BucketLimit = { limit: 50, windowMs: 1000 };

export class FakeHttp {
  readonly calls: RecordedCall[] = [];
  /** Calls refused for going past their bucket (not the injected 429s): a client that ignored the headers. */
  readonly floodRefusals: RecordedCall[] = [];
  private readonly routes: Route[] = [];
  private readonly buckets = new Map<string, { remaining: number; resetAt: number }>();
  private readonly limits = new Map<string, BucketLimit>();
  private readonly injected = new Map<string, Injected[]>();
  private readonly raw = new Map<string, (req: IncomingMessage, res: ServerResponse) => void>();
  private server?: Server;
  port = 0;

  constructor(private readonly token: () => string) {}

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Registers `GET /channels/:channel` style routes (relative to /api/v10). */
  on(method: string, template: string, handler: Handler, options: { auth?: boolean } = {}): void {
    const names: string[] = [];
    const pattern = new RegExp(`^${template.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:(\w+)/g, (_m, name: string) => (names.push(name), "([^/]+)"))}$`);
    this.routes.push({ method, template, pattern, names, auth: options.auth ?? true, handler });
  }

  /** Serves a path outside the API (attachments) with a plain handler. */
  onRaw(prefix: string, handler: (req: IncomingMessage, res: ServerResponse) => void): void {
    this.raw.set(prefix, handler);
  }

  setLimit(routeKey: string, limit: BucketLimit): void {
    this.limits.set(routeKey, limit);
  }

  inject(routeKey: string, failure: Injected): void {
    const list = this.injected.get(routeKey) ?? [];
    list.push(failure);
    this.injected.set(routeKey, list);
  }

  async listen(onUpgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void): Promise<void> {
    this.server = createServer((req, res) => void this.onRequest(req, res));
    this.server.on("upgrade", onUpgrade);
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.baseUrl);
    for (const [prefix, handler] of this.raw) if (url.pathname.startsWith(prefix)) return handler(req, res);
    if (!url.pathname.startsWith(`${API_PREFIX}/`)) return this.reply(res, { status: 404, body: { message: "404: Not Found", code: 0 } });
    const path = url.pathname.slice(API_PREFIX.length).split("/").map(decodeURIComponent).join("/");
    const method = req.method ?? "GET";
    const raw = await readBody(req);
    const query = Object.fromEntries(url.searchParams);
    const record: RecordedCall = { method, route: "?", path, params: {}, query, body: undefined, at: Date.now(), status: 0 };
    this.calls.push(record);

    const boundary = boundaryOf(String(req.headers["content-type"] ?? ""));
    if (raw.length > 0 && boundary) {
      // An upload: the message as `payload_json`, each file in a part named files[n].
      try {
        const parts = parseMultipart(raw, boundary);
        record.body = typeof parts.payload_json === "string" ? JSON.parse(parts.payload_json) : {};
        record.files = Object.entries(parts)
          .filter(([name, part]) => /^files\[\d+\]$/.test(name) && typeof part !== "string")
          .map(([, part]) => part as UploadedPart);
      } catch {
        return this.finish(res, record, { status: 400, body: { code: 50109, message: "The request body contains invalid JSON." } });
      }
    } else if (raw.length > 0) {
      if (!String(req.headers["content-type"] ?? "").startsWith("application/json")) {
        return this.finish(res, record, { status: 400, body: { code: 50109, message: "The request body contains invalid JSON. (the fake covers JSON bodies only)" } });
      }
      try {
        record.body = JSON.parse(raw.toString("utf8"));
      } catch {
        return this.finish(res, record, { status: 400, body: { code: 50109, message: "The request body contains invalid JSON." } });
      }
    }
    const match = this.match(method, path);
    if (!match) return this.finish(res, record, { status: 404, body: { message: "404: Not Found", code: 0 } });
    const { route, params } = match;
    record.route = route.template;
    record.params = params;
    if (route.auth && req.headers.authorization !== `Bot ${this.token()}`) return this.finish(res, record, { status: 401, body: { message: "401: Unauthorized", code: 0 } });

    const routeKey = `${method} ${route.template}`;
    const major = params.channel ?? params.token ?? params.guild ?? "";
    const bucket = this.take(routeKey, major);
    const injected = this.injected.get(routeKey)?.shift();
    if (injected?.kind === "ratelimit") return this.rateLimited(res, record, bucket, injected.seconds, injected.global, injected.scope);
    if (bucket.exceeded) {
      this.floodRefusals.push(record);
      return this.rateLimited(res, record, bucket, bucket.resetAfterMs / 1000, false, "user");
    }
    if (injected?.kind === "error") {
      const { status, code, message, errors } = injected;
      return this.finish(res, record, { status, body: { code, message, ...(errors ? { errors } : {}) } }, bucket.headers);
    }
    let answer: Answer | ApiError;
    try {
      answer = await route.handler({ params, query, body: record.body, files: record.files });
    } catch (error) {
      answer = { status: 500, body: { code: 0, message: `500: fake Discord failed: ${(error as Error).message}` } };
    }
    this.finish(res, record, answer, bucket.headers);
  }

  private match(method: string, path: string): { route: Route; params: Record<string, string> } | undefined {
    for (const route of this.routes) {
      if (route.method !== method) continue;
      const m = route.pattern.exec(path);
      if (!m) continue;
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => {
        params[name] = m[i + 1];
      });
      return { route, params };
    }
    return undefined;
  }

  private take(routeKey: string, major: string): { exceeded: boolean; resetAfterMs: number; headers: Record<string, string> } {
    const limit = this.limits.get(routeKey) ?? GENEROUS;
    const key = `${routeKey} ${major}`;
    const now = Date.now();
    let state = this.buckets.get(key);
    if (!state || now >= state.resetAt) {
      state = { remaining: limit.limit, resetAt: now + limit.windowMs };
      this.buckets.set(key, state);
    }
    const exceeded = state.remaining <= 0;
    if (!exceeded) state.remaining -= 1;
    const resetAfterMs = state.resetAt - now;
    const headers = {
      "x-ratelimit-limit": String(limit.limit),
      "x-ratelimit-remaining": String(state.remaining),
      "x-ratelimit-reset": (state.resetAt / 1000).toFixed(3),
      "x-ratelimit-reset-after": (resetAfterMs / 1000).toFixed(3),
      "x-ratelimit-bucket": createHash("sha1").update(routeKey).digest("hex").slice(0, 16),
    };
    return { exceeded, resetAfterMs, headers };
  }

  private rateLimited(res: ServerResponse, record: RecordedCall, bucket: { headers: Record<string, string> }, seconds: number, global: boolean, scope: string): void {
    const headers: Record<string, string> = {
      ...bucket.headers,
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset-after": seconds.toFixed(3),
      "x-ratelimit-reset": ((Date.now() + seconds * 1000) / 1000).toFixed(3),
      "x-ratelimit-scope": global ? "global" : scope,
      "retry-after": String(Math.ceil(seconds)),
    };
    if (global) headers["x-ratelimit-global"] = "true";
    this.finish(res, record, { status: 429, body: { message: "You are being rate limited.", retry_after: seconds, global } }, headers);
  }

  private finish(res: ServerResponse, record: RecordedCall, answer: Answer | ApiError, headers: Record<string, string> = {}): void {
    record.status = answer.status;
    const code = (answer.body as { code?: unknown } | undefined)?.code;
    if (answer.status >= 400 && typeof code === "number") record.code = code;
    this.reply(res, answer, headers);
  }

  private reply(res: ServerResponse, answer: Answer | ApiError, headers: Record<string, string> = {}): void {
    if (answer.body === undefined) return void res.writeHead(answer.status, headers).end();
    res.writeHead(answer.status, { ...headers, "content-type": "application/json" }).end(JSON.stringify(answer.body));
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

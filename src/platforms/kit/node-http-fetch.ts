// A fetch for API clients that only send small bodies and read small JSON answers (grammY's Bot
// API calls), on Node's own http/https with keep-alive agents. Global fetch (undici) pays per call
// for WHATWG streams, Headers, Request/Response objects and AbortSignal plumbing; under load that
// was a seventh of Baton's CPU and a large share of its garbage. This does one http.request, reads
// the answer into one Buffer and hands back the few members API clients use (status, ok,
// statusText, headers.get, json, text, arrayBuffer).
//
// Anything else — a stream, FormData or async-iterable body (grammY's multipart uploads), a
// Request object, a non-http URL — goes to globalThis.fetch unchanged, so uploads keep working
// exactly as before. The whole answer is read before the promise resolves: not for downloads.
import http from "node:http";
import https from "node:https";

/** Idle keep-alive sockets close after this; under the 5 s most servers (and undici's 4 s default) keep them, so a reused socket is rarely one the server is closing. A server's `Keep-Alive: timeout=` hint shortens it further (Node's Agent reads it). */
const IDLE_SOCKET_TIMEOUT_MS = 4_000;

export interface NodeHttpFetch {
  /** Fetch-compatible for the calls API clients make; cast to `typeof fetch` where a client wants it. */
  fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  /** Closes every socket the agents hold, idle or busy (pending calls reject). */
  destroy(): void;
}

type HeadersInput = RequestInit["headers"];

/**
 * One pair of keep-alive agents per call: an adapter owns its fetch and destroys it at stop(), so
 * two adapters (or a test's many) never share sockets and nothing is left open after stop. Idle
 * sockets are unref'd by Node's Agent, so they never keep the process alive either.
 */
export function createNodeHttpFetch(): NodeHttpFetch {
  const agentOptions = { keepAlive: true, timeout: IDLE_SOCKET_TIMEOUT_MS };
  const httpAgent = new http.Agent(agentOptions);
  const httpsAgent = new https.Agent(agentOptions);
  return {
    fetch: (input, init) => {
      const url = typeof input === "string" ? input : input instanceof URL ? input.href : undefined;
      const body = init?.body;
      const simpleBody = body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array;
      const protocol = url?.startsWith("https:") ? "https:" : url?.startsWith("http:") ? "http:" : undefined;
      if (url === undefined || protocol === undefined || !simpleBody) return globalThis.fetch(input, init);
      return request(url, protocol === "https:" ? https : http, protocol === "https:" ? httpsAgent : httpAgent, init ?? {}, body ?? undefined);
    },
    destroy: () => {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

function request(url: string, transport: typeof http | typeof https, agent: http.Agent, init: RequestInit, body: string | Uint8Array | undefined): Promise<Response> {
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  return new Promise<Response>((resolve, reject) => {
    let settled = false;
    const finish = (error: unknown, response?: Response) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      if (error !== undefined) reject(error);
      else resolve(response!);
    };
    const headers = toHeaderObject(init.headers);
    if (body !== undefined) headers["content-length"] = String(typeof body === "string" ? Buffer.byteLength(body) : body.byteLength);
    const req = transport.request(url, { method: init.method ?? "GET", headers, agent });
    // Destroying (not just ignoring) the request closes the socket, so a half-read answer is never
    // left on a socket the agent would hand to the next call.
    const onAbort = () => {
      finish(abortError(signal!));
      req.destroy();
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    req.on("error", (error) => finish(networkError(error)));
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", (error) => finish(networkError(error)));
      res.on("end", () => finish(undefined, new BufferedResponse(url, res, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)) as unknown as Response));
      res.on("close", () => {
        if (!res.complete) finish(networkError(new Error("the connection closed before the whole answer arrived")));
      });
    });
    req.end(body);
  });
}

function toHeaderObject(input: HeadersInput): Record<string, string> {
  const out: Record<string, string> = {};
  if (!input) return out;
  if (input instanceof Headers || Array.isArray(input)) {
    for (const [name, value] of input as Iterable<[string, string]>) out[name.toLowerCase()] = value;
    return out;
  }
  for (const [name, value] of Object.entries(input)) out[name.toLowerCase()] = value;
  return out;
}

/** What fetch rejects with on an abort: the signal's reason (a TimeoutError from AbortSignal.timeout), else an AbortError. */
function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

/** Same shape as undici's: message "fetch failed", the reason (ECONNREFUSED, ECONNRESET, …) in `cause`. */
function networkError(cause: Error): Error {
  return new TypeError("fetch failed", { cause });
}

class BufferedHeaders {
  constructor(private readonly raw: http.IncomingHttpHeaders) {}
  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(", ") : value;
  }
  has(name: string): boolean {
    return this.raw[name.toLowerCase()] !== undefined;
  }
}

class BufferedResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly headers: BufferedHeaders;
  readonly redirected = false;
  readonly type = "basic";
  bodyUsed = false;

  constructor(
    readonly url: string,
    res: http.IncomingMessage,
    private readonly body: Buffer,
  ) {
    this.status = res.statusCode ?? 0;
    this.statusText = res.statusMessage ?? "";
    this.ok = this.status >= 200 && this.status <= 299;
    this.headers = new BufferedHeaders(res.headers);
  }

  async text(): Promise<string> {
    this.bodyUsed = true;
    return this.body.toString("utf8");
  }

  /** Rejects (SyntaxError) on a body that is not JSON, as fetch's does. */
  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    this.bodyUsed = true;
    return new Uint8Array(this.body).buffer;
  }
}

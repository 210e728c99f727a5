// The kit's hand-written fetch (platforms/kit/node-http-fetch.ts) against Node's own fetch (undici),
// the library it replaces for the Telegram adapter. The traffic is grammY's: the Bot API calls
// Baton's adapter makes, recorded as grammY issues them (URL, method, headers, body), then sent
// through both fetches to one loopback server. The same requests must arrive on the wire (method,
// path, body bytes, the caller's headers; fetch adds only its own defaults), the same answers come
// back (status, ok, statusText, headers, body, a body that is not JSON), and the same failures
// (refused connection, reset, a timeout's abort, a bad status) reject the same way.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Api } from "grammy/web";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNodeHttpFetch } from "../../../src/platforms/kit/node-http-fetch.js";
import { toPlatformError } from "../../../src/platforms/telegram/errors.js";
import { closedPort } from "../../support/closed-port.js";

const TOKEN = "123456:differential-token";
/** Headers undici adds to every request of its own accord; node-http-fetch sends only the caller's. */
const FETCH_DEFAULT_HEADERS = new Set(["accept", "accept-language", "accept-encoding", "sec-fetch-mode", "user-agent", "connection"]);
/** How long a timed-out call waits before its signal aborts it. */
const TIMEOUT_MS = 50;

interface OnTheWire {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

let server: Server;
let base: string;
const wire: OnTheWire[] = [];
/** How the server answers a path (the Bot API method). */
const answers: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  reset: (req) => req.socket.destroy(),
  slow: () => undefined,
  "bad-status": (_req, res) =>
    res.writeHead(400, "Bad Request", { "content-type": "application/json" }).end(JSON.stringify({ ok: false, error_code: 400, description: "Bad Request: chat not found" })),
  "not-json": (_req, res) => res.writeHead(502, "Bad Gateway", { "content-type": "text/html" }).end("<html>502 Bad Gateway</html>"),
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const headers: Record<string, string> = {};
      for (let i = 0; i < req.rawHeaders.length; i += 2) headers[req.rawHeaders[i]!.toLowerCase()] = req.rawHeaders[i + 1]!;
      wire.push({ method: req.method ?? "", url: req.url ?? "", headers, body: Buffer.concat(chunks).toString("utf8") });
      const method = (req.url ?? "").split("/").pop() ?? "";
      const special = answers[method];
      if (special) return special(req, res);
      res.writeHead(200, { "content-type": "application/json", "x-echo-method": method }).end(JSON.stringify({ ok: true, result: { method, echoed: Buffer.concat(chunks).length } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

interface Recorded {
  url: string;
  init: RequestInit;
}

/** The requests grammY makes for the Bot API calls the Telegram adapter makes, as grammY hands them to fetch. */
async function recordGrammyTraffic(): Promise<Recorded[]> {
  const recorded: Recorded[] = [];
  const recording = (async (input: string | URL, init?: RequestInit) => {
    recorded.push({ url: String(input), init: { ...init, signal: undefined } });
    return new Response(JSON.stringify({ ok: true, result: true }), { headers: { "content-type": "application/json" } });
  }) as typeof fetch;
  const api = new Api(TOKEN, { apiRoot: base, fetch: recording });
  const keyboard = {
    inline_keyboard: [
      [
        { text: "Allow once", callback_data: "baton:a:1" },
        { text: "Deny", callback_data: "baton:d:1" },
      ],
    ],
  };
  await api.getMe();
  await api.deleteWebhook();
  await api.setMyCommands([
    { command: "new", description: "Start a new thread" },
    { command: "stop", description: "Stop the running turn" },
  ]);
  await api.getUpdates({ offset: 42, timeout: 0, allowed_updates: ["message", "callback_query"] });
  await api.sendChatAction(111, "typing");
  await api.sendMessage(111, "<b>Claude</b> wants to run <code>rm -rf build/</code> — allow? ✅ ünïcödé 🎉", {
    parse_mode: "HTML",
    reply_markup: keyboard,
    link_preview_options: { is_disabled: true },
  });
  await api.editMessageText(111, 5, "Streaming… <i>part 2</i>", { parse_mode: "HTML" });
  await api.answerCallbackQuery("cb-1", { text: "Allowed" });
  await api.setMessageReaction(111, 5, [{ type: "emoji", emoji: "👀" }]);
  await api.deleteMessage(111, 6);
  return recorded;
}

function callersHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !FETCH_DEFAULT_HEADERS.has(name)));
}

async function settle(call: Promise<Response>): Promise<Record<string, unknown>> {
  try {
    const res = await call;
    const text = await res.text();
    let json: unknown;
    let jsonError: string | undefined;
    try {
      json = JSON.parse(text);
    } catch (error) {
      jsonError = (error as Error).name;
    }
    return {
      status: res.status,
      ok: res.ok,
      statusText: res.statusText,
      contentType: res.headers.get("content-type"),
      echo: res.headers.get("x-echo-method"),
      missing: res.headers.get("x-not-there"),
      text,
      json,
      jsonError,
    };
  } catch (error) {
    const e = error as Error & { cause?: { code?: string } };
    return { rejected: e.name, message: e.message, cause: e.cause?.code };
  }
}

describe("node-http-fetch against fetch, over grammY's Bot API traffic", () => {
  it("puts the same requests on the wire and reads the same answers", async () => {
    const traffic = await recordGrammyTraffic();
    expect(traffic.length).toBe(10);
    const mine = createNodeHttpFetch();
    try {
      for (const { url, init } of traffic) {
        wire.length = 0;
        const viaFetch = await settle(fetch(url, init));
        const viaMine = await settle(mine.fetch(url, init));
        expect(viaMine, url).toStrictEqual(viaFetch);
        const [a, b] = wire;
        expect(b!.method).toBe(a!.method);
        expect(b!.url).toBe(a!.url);
        expect(b!.body).toBe(a!.body);
        expect(callersHeaders(b!.headers), url).toStrictEqual(callersHeaders(a!.headers));
        expect(b!.headers["content-length"] ?? "0").toBe(a!.headers["content-length"] ?? "0");
      }
    } finally {
      mine.destroy();
    }
  });

  it("answers a bad status and a body that is not JSON the same way", async () => {
    const mine = createNodeHttpFetch();
    try {
      for (const path of ["bad-status", "not-json"]) {
        const url = `${base}/bot${TOKEN}/${path}`;
        const init = { method: "POST", headers: { "content-type": "application/json" }, body: '{"chat_id":1}' };
        expect(await settle(mine.fetch(url, init)), path).toStrictEqual(await settle(fetch(url, init)));
        const viaFetch = await fetch(url, init).then((r) =>
          r.json().then(
            () => "parsed",
            (e: Error) => e.name,
          ),
        );
        const viaMine = await mine.fetch(url, init).then((r) =>
          r.json().then(
            () => "parsed",
            (e: Error) => e.name,
          ),
        );
        expect(viaMine).toBe(viaFetch);
      }
    } finally {
      mine.destroy();
    }
  });

  it("fails the same way on a refused connection, a reset, and a timeout's abort", async () => {
    const mine = createNodeHttpFetch();
    const refusedUrl = `http://127.0.0.1:${await closedPort()}/bot${TOKEN}/getMe`;
    try {
      const cases: Array<[string, () => RequestInit]> = [
        [refusedUrl, () => ({})],
        [`${base}/bot${TOKEN}/reset`, () => ({ method: "POST", body: "{}" })],
        [`${base}/bot${TOKEN}/slow`, () => ({ signal: AbortSignal.timeout(TIMEOUT_MS) })],
        [`${base}/bot${TOKEN}/slow`, () => ({ signal: AbortSignal.abort() })],
      ];
      for (const [url, init] of cases) {
        const viaFetch = await settle(fetch(url, init()));
        const viaMine = await settle(mine.fetch(url, init()));
        expect(viaFetch.rejected, url).toBeDefined();
        if (url.endsWith("/reset")) {
          // The one difference: the cause is each transport's own word for the peer hanging up
          // (undici's SocketError, Node's socket ECONNRESET); both are "fetch failed" TypeErrors.
          expect([viaFetch.cause, viaMine.cause]).toEqual(["UND_ERR_SOCKET", "ECONNRESET"]);
          expect({ ...viaMine, cause: undefined }).toStrictEqual({ ...viaFetch, cause: undefined });
        } else expect(viaMine, url).toStrictEqual(viaFetch);
      }
    } finally {
      mine.destroy();
    }
  });

  it("gives grammY failures the Telegram adapter classifies alike", async () => {
    const mine = createNodeHttpFetch();
    try {
      for (const method of ["reset", "bad-status", "not-json"]) {
        const reasons = [];
        for (const f of [fetch, mine.fetch as typeof fetch]) {
          const api = new Api(TOKEN, { apiRoot: base, fetch: f });
          const error = await api.raw.getMe().catch((e: unknown) => e);
          reasons.push(toPlatformError(error, "check the bot token", TOKEN).reason);
        }
        expect(reasons[1], method).toBe(reasons[0]);
      }
    } finally {
      mine.destroy();
    }
  });
});

// The kit's fetch on node:http, against a real local server: what arrives on the wire, keep-alive,
// aborts, failures, and the hand-off of stream bodies to global fetch. Through grammY, a reset
// connection still reads as a network failure.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Api } from "grammy/web";
import { createNodeHttpFetch, type NodeHttpFetch } from "../../../src/platforms/kit/node-http-fetch.js";
import { toPlatformError } from "../../../src/platforms/telegram/errors.js";
import { closedPort } from "../../support/closed-port.js";

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
}

let server: Server;
let base: string;
let received: Received[];
let connections: number;
let closedSockets: number;
let http: NodeHttpFetch;
/** Each test sets how the server answers. */
let answer: (req: IncomingMessage, res: ServerResponse) => void;

beforeEach(async () => {
  received = [];
  connections = 0;
  closedSockets = 0;
  answer = (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true,"result":1}');
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks) });
      answer(req, res);
    });
  });
  server.on("connection", (socket: Socket) => {
    connections++;
    socket.on("close", () => closedSockets++);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  http = createNodeHttpFetch();
});

afterEach(async () => {
  http.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const waitFor = async (probe: () => boolean, what: string, timeoutMs = 2_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

describe("node-http fetch", () => {
  it("reads a JSON answer with status, ok, statusText and headers", async () => {
    const res = await http.fetch(`${base}/bot1/getMe`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(res.status).toBe(200);
    expect(res.ok).toBe(true);
    expect(res.statusText).toBe("OK");
    expect(res.headers.get("Content-Type")).toBe("application/json");
    expect(res.headers.get("x-missing")).toBeNull();
    expect(await res.json()).toEqual({ ok: true, result: 1 });
  });

  it("rejects json() of an answer that is not JSON, and reports a refusal's status", async () => {
    answer = (_req, res) => res.writeHead(502, "Bad Gateway", { "content-type": "text/html" }).end("<html>bad gateway</html>");
    const res = await http.fetch(`${base}/x`);
    expect(res.status).toBe(502);
    expect(res.ok).toBe(false);
    expect(res.statusText).toBe("Bad Gateway");
    await expect(res.json()).rejects.toThrow(SyntaxError);
    const again = await http.fetch(`${base}/x`);
    expect(await again.text()).toBe("<html>bad gateway</html>");
  });

  it("sends a string and a Uint8Array body byte-exact, with the method and headers", async () => {
    const text = '{"text":"héllo ✓ 🚀"}';
    await http.fetch(`${base}/a`, { method: "POST", headers: { "Content-Type": "application/json", connection: "keep-alive" }, body: text });
    const bytes = new Uint8Array([0, 1, 2, 250, 251, 255]);
    await http.fetch(`${base}/b`, { method: "PUT", headers: [["x-pair", "1"]], body: bytes });
    await http.fetch(`${base}/c`, { headers: new Headers({ "X-From-Headers": "yes" }) });
    expect(received.map((r) => [r.method, r.url])).toEqual([
      ["POST", "/a"],
      ["PUT", "/b"],
      ["GET", "/c"],
    ]);
    expect(received[0]!.body.toString("utf8")).toBe(text);
    expect(received[0]!.headers["content-type"]).toBe("application/json");
    expect(received[0]!.headers["content-length"]).toBe(String(Buffer.byteLength(text)));
    expect([...received[1]!.body]).toEqual([...bytes]);
    expect(received[1]!.headers["x-pair"]).toBe("1");
    expect(received[2]!.headers["x-from-headers"]).toBe("yes");
    expect(received[2]!.body.length).toBe(0);
  });

  it("reuses one keep-alive socket for sequential calls", async () => {
    for (let i = 0; i < 5; i++) expect(await (await http.fetch(`${base}/k`, { method: "POST", body: "{}" })).json()).toEqual({ ok: true, result: 1 });
    expect(received).toHaveLength(5);
    expect(connections).toBe(1);
  });

  it("rejects with AbortError when the signal is already aborted, without a request", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(http.fetch(`${base}/never`, { signal: controller.signal })).rejects.toMatchObject({ name: "AbortError" });
    expect(received).toHaveLength(0);
  });

  it("rejects promptly with AbortError during a slow answer and closes the socket", async () => {
    let held: ServerResponse | undefined;
    answer = (_req, res) => {
      held = res;
      res.writeHead(200, { "content-type": "application/json" }).write('{"ok":'); // half an answer, then nothing
    };
    const controller = new AbortController();
    const call = http.fetch(`${base}/slow`, { method: "POST", body: "{}", signal: controller.signal });
    await waitFor(() => held !== undefined, "the request to reach the server");
    const startedAt = Date.now();
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
    expect(Date.now() - startedAt).toBeLessThan(500);
    await waitFor(() => closedSockets === 1, "the server to see the socket closed");
    // The next call gets a fresh socket, not the half-read one.
    answer = (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true,"result":2}');
    expect(await (await http.fetch(`${base}/next`)).json()).toEqual({ ok: true, result: 2 });
    expect(connections).toBe(2);
  });

  it("rejects a refused connection with an Error whose cause is ECONNREFUSED", async () => {
    const port = await closedPort();
    const failure = await http.fetch(`http://127.0.0.1:${port}/x`).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toBe("fetch failed");
    expect((failure as Error & { cause: { code: string } }).cause.code).toBe("ECONNREFUSED");
  });

  it("hands a stream body to global fetch, which delivers it", async () => {
    const encoder = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode("part one, "));
        controller.enqueue(encoder.encode("part two"));
        controller.close();
      },
    });
    const res = await http.fetch(`${base}/upload`, { method: "POST", headers: { "content-type": "multipart/form-data; boundary=x" }, body: stream, duplex: "half" } as RequestInit);
    expect(await res.json()).toEqual({ ok: true, result: 1 });
    expect(received[0]!.body.toString("utf8")).toBe("part one, part two");
    expect(received[0]!.headers["transfer-encoding"]).toBe("chunked");
  });
});

describe("through grammY", () => {
  it("reads a reset connection as a network failure and a Bot API error as before", async () => {
    const api = new Api("123:secret", { apiRoot: base, fetch: http.fetch as typeof fetch });
    answer = (req) => req.socket.destroy();
    const reset = toPlatformError(await api.getMe().catch((error: unknown) => error), "check the bot token", "123:secret");
    expect(reset).toMatchObject({ reason: "network" });
    expect(reset.message).toContain("ECONNRESET");
    answer = (_req, res) =>
      res.writeHead(429, { "content-type": "application/json" }).end(JSON.stringify({ ok: false, error_code: 429, description: "Too Many Requests: retry after 3", parameters: { retry_after: 3 } }));
    const limited = toPlatformError(await api.sendMessage(1, "hi").catch((error: unknown) => error), "send a message");
    expect(limited).toMatchObject({ reason: "rate_limited", retryAfterMs: 3000, retryScope: "key" });
  });
});

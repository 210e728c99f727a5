// The HTTP part every fake model server shares: loopback only, JSON bodies (gzip and zstd-free:
// the CLIs send plain or gzip), Server-Sent Events out, and a record of paths nobody handles so a
// test can see what an agent tried that the fake does not cover.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync, inflateSync, brotliDecompressSync } from "node:zlib";
import { Brain } from "./brain.js";

type Handler = (req: IncomingMessage, res: ServerResponse, body: unknown, url: URL) => void | Promise<void>;

export interface Route {
  method: string;
  /** Matched against the path (without the query string). */
  path: RegExp;
  handle: Handler;
}

export class FakeHttpServer {
  readonly brain = new Brain();
  /** `METHOD path` of requests no route answered (404). */
  readonly unhandled: string[] = [];
  private server?: Server;
  private readonly sockets = new Set<import("node:net").Socket>();

  constructor(private readonly routes: Route[]) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.dispatch(req, res));
    this.server.on("connection", (s) => {
      this.sockets.add(s);
      s.on("close", () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    return this;
  }

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = undefined;
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    try {
      const raw = await readBody(req);
      const body = raw.length ? parseJson(raw) : undefined;
      const route = this.routes.find((r) => r.method === req.method && r.path.test(url.pathname));
      if (!route) {
        this.unhandled.push(`${req.method} ${url.pathname}`);
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: `fake: no route for ${req.method} ${url.pathname}` } }));
        return;
      }
      await route.handle(req, res, body, url);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `fake: ${(error as Error).message}` } }));
    }
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of req) parts.push(chunk as Buffer);
  const buf = Buffer.concat(parts);
  switch (req.headers["content-encoding"]) {
    case "gzip":
      return gunzipSync(buf);
    case "deflate":
      return inflateSync(buf);
    case "br":
      return brotliDecompressSync(buf);
    default:
      return buf;
  }
}

function parseJson(buf: Buffer): unknown {
  try {
    return JSON.parse(buf.toString("utf8"));
  } catch {
    return buf.toString("utf8");
  }
}

/** Starts an SSE response. */
export function sseStart(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
}

/** One SSE event; `event` is omitted for data-only streams (Gemini). */
export function sseSend(res: ServerResponse, data: unknown, event?: string): void {
  res.write(`${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`);
}

export function json(res: ServerResponse, value: unknown, status = 200): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
}

export function asObj(v: unknown): Record<string, any> {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, any>) : {};
}

export function asArr(v: unknown): any[] {
  return Array.isArray(v) ? v : [];
}

// Webhook mode: a small HTTP server that Telegram (or a reverse proxy in front of it) posts updates
// to. Every request must carry the configured secret in X-Telegram-Bot-Api-Secret-Token; anything
// else is refused before the body is read.
import { createServer, type IncomingMessage, type Server } from "node:http";
import { timingSafeEqual } from "node:crypto";
import type { Update } from "grammy/types";
import { PlatformError } from "../../kernel/errors.js";
import { parseListenAddress } from "../../kernel/listen.js";

const MAX_UPDATE_BYTES = 1024 * 1024;
const SECRET_HEADER = "x-telegram-bot-api-secret-token";

export interface WebhookServerOptions {
  listen: string;
  /** Path part of the public webhook URL; requests elsewhere get 404. */
  path: string;
  secretToken: string;
  onUpdate(update: Update): void;
}

export class WebhookServer {
  private server?: Server;

  constructor(private readonly options: WebhookServerOptions) {}

  async start(): Promise<{ host: string; port: number }> {
    const { host, port } = parseListen(this.options.listen);
    const server = createServer((request, response) => {
      void this.handle(request).then(
        (status) => response.writeHead(status).end(),
        () => response.writeHead(400).end(),
      );
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", (error) =>
        reject(new PlatformError(`The Telegram webhook server cannot listen on ${this.options.listen}.`, { reason: "network", detail: String(error) })),
      );
      server.listen(port, host, () => resolve());
    });
    const address = server.address();
    return { host, port: typeof address === "object" && address ? address.port : port };
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage): Promise<number> {
    if (request.method !== "POST" || new URL(request.url ?? "/", "http://localhost").pathname !== this.options.path) return 404;
    if (!secretMatches(request.headers[SECRET_HEADER], this.options.secretToken)) return 401;
    const body = await readBody(request);
    const update = JSON.parse(body) as Update;
    if (typeof update?.update_id !== "number") return 400;
    this.options.onUpdate(update);
    return 200;
  }
}

function secretMatches(header: string | string[] | undefined, secret: string): boolean {
  if (typeof header !== "string") return false;
  const given = Buffer.from(header);
  const expected = Buffer.from(secret);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_UPDATE_BYTES) throw new Error("update too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function parseListen(listen: string): { host: string; port: number } {
  // A bare port means the loopback default too.
  const address = parseListenAddress(/^\d+$/.test(listen.trim()) ? `:${listen.trim()}` : listen);
  if (!address) throw new PlatformError(`webhook.listen must be host:port, got "${listen}".`, { reason: "refused" });
  return address;
}

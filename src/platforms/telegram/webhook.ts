// Webhook mode: a small HTTP server that Telegram (or a reverse proxy in front of it) posts updates
// to. Every request must carry the configured secret in X-Telegram-Bot-Api-Secret-Token; anything
// else is refused before the body is read.
import type { Server } from "node:http";
import type { Update } from "grammy/types";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { PlatformError } from "../../kernel/errors.js";
import { bearerAuth, closeServer, constantTimeEqual, honoServer, listenOn } from "../../kernel/http.js";
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
    const server = honoServer(this.app(), host);
    this.server = server;
    const address = await listenOn(server, host, port).catch((error: unknown) => {
      throw new PlatformError(`The Telegram webhook server cannot listen on ${this.options.listen}.`, { reason: "network", detail: String(error) });
    });
    return { host, port: address.port };
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await closeServer(server);
  }

  private app(): Hono {
    const app = new Hono();
    // The secret is Telegram's own header, the token alone (no "Bearer" scheme).
    const secret = bearerAuth({ header: SECRET_HEADER, prefix: "", identify: (token) => constantTimeEqual(token, this.options.secretToken) || undefined, message: "" });
    const tooLarge = bodyLimit({ maxSize: MAX_UPDATE_BYTES, onError: (c) => c.body(null, 400) });
    app.post(this.options.path, secret, tooLarge, async (c) => {
      const update = (await c.req.json().catch(() => undefined)) as Update | undefined;
      if (typeof update?.update_id !== "number") return c.body(null, 400);
      this.options.onUpdate(update);
      return c.body(null, 200);
    });
    app.notFound((c) => c.body(null, 404));
    return app;
  }
}

function parseListen(listen: string): { host: string; port: number } {
  // A bare port means the loopback default too.
  const address = parseListenAddress(/^\d+$/.test(listen.trim()) ? `:${listen.trim()}` : listen);
  if (!address) throw new PlatformError(`webhook.listen must be host:port, got "${listen}".`, { reason: "refused" });
  return address;
}

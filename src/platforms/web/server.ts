// The web chat's HTTP + WebSocket server: one Hono app on Node's http server answers every
// request, the socket's upgrade on `/ws` included (`ws` does the handshake once the app let it
// through). So one check guards every route: the token (query or bearer) or the cookie the page got
// for it; the socket and uploads also refuse foreign origins.
import { upgradeWebSocket } from "@hono/node-server";
import { Hono, type MiddlewareHandler } from "hono";
import { WebSocketServer } from "ws";
import { PlatformError } from "../../kernel/errors.js";
import { bearerAuth, closeServer, honoServer, listenOn, type BearerEnv } from "../../kernel/http.js";
import { parseListenAddress, type ListenAddress } from "../../kernel/listen.js";
import type { PlatformLogger } from "../contract.js";
import type { PageAssets } from "./assets.js";
import type { WebAuth } from "./auth.js";
import { MAX_INBOUND_FRAME_BYTES, type SocketHub } from "./sockets.js";
import { UPLOAD_NAME_HEADER, UPLOAD_PATH } from "./protocol.js";
import { Readable } from "node:stream";

const SOCKET_PATH = "/ws";
const UNAUTHORIZED_TEXT = "401 Unauthorized: open the link `baton start` printed (it carries ?token=…).\n";
/** What the page may load: only this server, no inline script, no framing. */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export type { ListenAddress };

export function parseListen(listen: string): ListenAddress {
  const address = parseListenAddress(listen);
  if (!address) throw new PlatformError(`Web chat: cannot listen on "${listen}"; use host:port, e.g. 127.0.0.1:8787.`, { reason: "refused" });
  return address;
}

export interface WebServerOptions {
  listen: ListenAddress;
  auth: WebAuth;
  hub: SocketHub;
  assets: PageAssets;
  files?: FileRoutes;
  log: PlatformLogger;
}

/** What the file routes ask of the adapter. */
export interface FileRoutes {
  /** A file kept with a message: its bytes and how to serve them. */
  serve(conversation: string, messageId: string): Promise<{ body: Readable; name: string; mimeType: string; inline: boolean } | undefined>;
  /** An upload from the page; answers the id to name in `send`, or why not (status + text). */
  upload(body: ReadableStream<Uint8Array>, name: string, mimeType: string, declaredBytes: number | undefined): Promise<{ ok: true; file: object } | { ok: false; status: 400 | 413; text: string }>;
}

export interface RunningWebServer {
  port: number;
  close(): Promise<void>;
}

/** A page of another site must not ride on the operator's cookie (cross-site WebSocket hijacking, uploads). */
const sameOrigin: MiddlewareHandler = async (c, next) => {
  const origin = c.req.header("origin");
  if (origin !== undefined && safeHost(origin) !== c.req.header("host")) return c.text("Forbidden\n", 403);
  return next();
};

function buildApp(auth: WebAuth, assets: PageAssets, files?: FileRoutes): Hono<BearerEnv<true>> {
  const app = new Hono<BearerEnv<true>>();
  const bearer = bearerAuth({ identify: (token) => auth.tokenMatches(token) || undefined, realm: "baton-web", message: UNAUTHORIZED_TEXT });
  app.use("*", async (c, next) => {
    c.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    c.header("Referrer-Policy", "no-referrer");
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Cache-Control", "no-store");
    const url = new URL(c.req.url);
    // The page's cookie, or the token in the link `baton start` printed; else the token as a bearer, checked as every listener checks one.
    if (auth.isAuthorized({ cookieHeader: c.req.header("cookie"), queryToken: url.searchParams.get("token") })) return next();
    return bearer(c, next);
  });
  app.get("/", (c) => {
    if (c.req.query("token") !== undefined) {
      // Trade the token for the cookie and drop it from the address bar (and from history).
      c.header("Set-Cookie", auth.setCookieHeader());
      return c.redirect("/", 303);
    }
    return c.html(assets.page());
  });
  app.get("/assets/:file", (c) => {
    const asset = assets.get(c.req.param("file"));
    if (!asset) return c.text("Not found\n", 404);
    return c.body(asset.body, 200, { "Content-Type": asset.contentType, "Cache-Control": "no-cache" });
  });
  app.get("/api/ping", (c) => c.json({ ok: true }));
  // Lets the handshake go ahead; the socket itself reaches the hub through the `ws` server's "connection" event (startWebServer).
  const handshake = upgradeWebSocket(() => ({}));
  app.get(SOCKET_PATH, sameOrigin, handshake);
  if (files) {
    app.get("/files/:conversation/:id", async (c) => {
      const file = await files.serve(c.req.param("conversation"), c.req.param("id"));
      if (!file) return c.text("Not found\n", 404);
      const disposition = `${file.inline ? "inline" : "attachment"}; filename*=UTF-8''${encodeURIComponent(file.name)}`;
      // Never run as a page of this origin, whatever it holds.
      c.header("Content-Security-Policy", "default-src 'none'; sandbox");
      return c.body(Readable.toWeb(file.body) as ReadableStream, 200, { "Content-Type": file.inline ? file.mimeType : "application/octet-stream", "Content-Disposition": disposition });
    });
    app.post(UPLOAD_PATH, sameOrigin, async (c) => {
      const name = decodeURIComponentSafe(c.req.header(UPLOAD_NAME_HEADER) ?? "");
      const length = c.req.header("content-length");
      if (!name || !c.req.raw.body) return c.json({ error: "Send the file as the body with its name in the x-baton-file-name header." }, 400);
      const result = await files.upload(c.req.raw.body, name, c.req.header("content-type") ?? "", length === undefined ? undefined : Number(length));
      return result.ok ? c.json(result.file) : c.json({ error: result.text }, result.status);
    });
  }
  return app;
}

export async function startWebServer(options: WebServerOptions): Promise<RunningWebServer> {
  const { auth, hub, log } = options;
  const app = buildApp(auth, options.assets, options.files);
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_INBOUND_FRAME_BYTES });
  // The hub takes each socket as the handshake completes, before any frame can be read from it.
  sockets.on("connection", (ws) => hub.accept(ws));
  const server = honoServer(app, options.listen.host, sockets);

  const address = await listenOn(server, options.listen.host, options.listen.port).catch((error: NodeJS.ErrnoException) => {
    const why = error.code === "EADDRINUSE" ? "the port is in use" : error.code === "EACCES" ? "permission denied" : error.message;
    throw new PlatformError(`Web chat: cannot listen on ${options.listen.host}:${options.listen.port} (${why}); set platforms.web.listen.`, { reason: "refused", cause: error });
  });
  server.on("error", (error) => log.error({ err: error }, "web chat server error"));
  hub.start();

  return {
    port: address.port,
    async close() {
      hub.closeAll();
      sockets.close();
      await closeServer(server);
    },
  };
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return "";
  }
}

function safeHost(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

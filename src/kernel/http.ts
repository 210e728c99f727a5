// The daemon's HTTP listeners (web chat, ops, MCP endpoint, Telegram webhook) share one way to route
// (Hono on Node's http server) and one way to check a bearer token: Hono's bearer middleware, with
// every fixed secret compared in constant time and the caller it names kept on the request.
import { createHash, timingSafeEqual } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer, type WebSocketServerLike } from "@hono/node-server";
import type { Hono, MiddlewareHandler } from "hono";
import { bearerAuth as honoBearerAuth } from "hono/bearer-auth";

/** Compares two secrets as SHA-256 digests in constant time: neither the length nor the bytes of either leak through timing. */
export function constantTimeEqual(given: string, expected: string): boolean {
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

export interface BearerOptions<Caller> {
  /** Whom a token speaks for, or undefined when it is nobody's (compare with constantTimeEqual). */
  identify(token: string): Caller | undefined;
  /** The header that carries it (default Authorization). */
  header?: string;
  /** The scheme before the token (default "Bearer"); "" when the header holds the token alone. */
  prefix?: string;
  /** The body of the 401 answer. */
  message?: string;
  /** The realm a 401 names (default "baton"). */
  realm?: string;
}

/** The variables a route behind bearerAuth reads: `c.get("caller")`. */
export interface BearerEnv<Caller> {
  Variables: { caller: Caller };
}

/** Refuses a request without a token `identify` knows (401, or 400 for a header that is not a token). */
export function bearerAuth<Caller>(options: BearerOptions<Caller>): MiddlewareHandler<BearerEnv<Caller>> {
  const message = options.message ?? "missing or wrong bearer token\n";
  return honoBearerAuth({
    realm: options.realm ?? "baton",
    headerName: options.header,
    prefix: options.prefix,
    noAuthenticationHeader: { message },
    invalidToken: { message },
    verifyToken: (token, c) => {
      const caller = options.identify(token);
      if (caller === undefined) return false;
      c.set("caller", caller);
      return true;
    },
  });
}

/**
 * A Node http server that answers with `app` (listen with listenOn). With `websocket` (a `ws`
 * server made with `noServer: true`), upgrade requests go through `app` too, as any request does:
 * its middleware answers them, and a route using `upgradeWebSocket` hands the socket to `websocket`.
 */
export function honoServer(app: Pick<Hono, "fetch">, host: string, websocket?: WebSocketServerLike): Server {
  return createAdaptorServer({ fetch: app.fetch, hostname: host, websocket: websocket && { server: websocket } }) as Server;
}

/** Listens and resolves with the address, or rejects with the listen error (EADDRINUSE, EACCES…). */
export function listenOn(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** `http://host:port` for a bound address (IPv6 in brackets). */
export function httpUrl(address: AddressInfo): string {
  const host = address.family === "IPv6" || address.address.includes(":") ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/** Stops listening and drops open connections (keep-alive ones included), resolving once closed. */
export function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  return closed;
}

// The one way the daemon's listeners route and check a bearer token (src/kernel/http.ts), on a real
// loopback socket: the answers a client sees for no token, a malformed header, a wrong token, and
// the caller a right token names.
import type { Server } from "node:http";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { bearerAuth, closeServer, constantTimeEqual, honoServer, httpUrl, listenOn, type BearerEnv } from "../../src/kernel/http.js";

let server: Server | undefined;
afterEach(async () => {
  if (server) await closeServer(server);
  server = undefined;
});

async function serve(app: Hono<BearerEnv<string>>): Promise<string> {
  server = honoServer(app, "127.0.0.1");
  return httpUrl(await listenOn(server, "127.0.0.1", 0));
}

describe("bearerAuth", () => {
  const tokens: Record<string, string> = { "tok-alice-0123456789": "alice", "tok-bob-0123456789": "bob" };
  const identify = (token: string) => Object.entries(tokens).find(([expected]) => constantTimeEqual(token, expected))?.[1];

  it("refuses a missing, malformed or wrong token and names the caller of a right one", async () => {
    const app = new Hono<BearerEnv<string>>();
    app.use("*", bearerAuth({ identify }));
    app.get("/who", (c) => c.text(c.get("caller")));
    const url = `${await serve(app)}/who`;

    const missing = await fetch(url);
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toBe('Bearer realm="baton"');
    expect(await missing.text()).toBe("missing or wrong bearer token\n");

    const wrong = await fetch(url, { headers: { authorization: "Bearer tok-alice-0123456788" } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toBe('Bearer error="invalid_token"');

    expect((await fetch(url, { headers: { authorization: "Basic dXNlcjpwYXNz" } })).status).toBe(400);
    expect((await fetch(url, { headers: { authorization: "Bearer has space" } })).status).toBe(400);

    const right = await fetch(url, { headers: { authorization: "Bearer tok-bob-0123456789" } });
    expect(right.status).toBe(200);
    expect(await right.text()).toBe("bob");
    // The scheme is case-insensitive (RFC 6750 follows RFC 7235).
    expect(await (await fetch(url, { headers: { authorization: "bearer tok-alice-0123456789" } })).text()).toBe("alice");
  });

  it("reads a token from its own header without a scheme (Telegram's secret header)", async () => {
    const app = new Hono<BearerEnv<string>>();
    app.use("*", bearerAuth({ header: "x-secret", prefix: "", identify }));
    app.get("/", (c) => c.text(c.get("caller")));
    const url = await serve(app);
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { "x-secret": "Bearer tok-bob-0123456789" } })).status).toBe(400);
    expect(await (await fetch(url, { headers: { "x-secret": "tok-bob-0123456789" } })).text()).toBe("bob");
  });
});

describe("constantTimeEqual", () => {
  it("is plain equality of strings, lengths counted in bytes", () => {
    expect(constantTimeEqual("secret", "secret")).toBe(true);
    expect(constantTimeEqual("secret", "secreT")).toBe(false);
    expect(constantTimeEqual("secret", "secret ")).toBe(false);
    expect(constantTimeEqual("é", "e")).toBe(false);
    expect(constantTimeEqual("", "")).toBe(true);
  });
});

describe("listenOn and httpUrl", () => {
  it("rejects with the listen error when the port is taken, and names an IPv6 address in brackets", async () => {
    const app = new Hono<BearerEnv<string>>();
    const url = await serve(app);
    const port = Number(new URL(url).port);
    const second = honoServer(app, "127.0.0.1");
    await expect(listenOn(second, "127.0.0.1", port)).rejects.toMatchObject({ code: "EADDRINUSE" });
    expect(httpUrl({ address: "::1", family: "IPv6", port: 8 })).toBe("http://[::1]:8");
    expect(httpUrl({ address: "127.0.0.1", family: "IPv4", port: 8 })).toBe("http://127.0.0.1:8");
  });
});

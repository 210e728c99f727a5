// The web chat's door: the token, the cookie it is traded for, 401 for everyone else (HTTP and
// WebSocket), foreign origins refused, and a page small enough to load at once.
import { afterEach, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import { PlatformError } from "../../../src/kernel/errors.js";
import { PageAssets } from "../../../src/platforms/web/assets.js";
import { TOKEN_FILE_NAME } from "../../../src/platforms/web/index.js";
import type { ServerEvent } from "../../../src/platforms/web/protocol.js";
import { startWebBaton, type WebBaton } from "./helpers.js";

/** The budget for the page: HTML + script + styles. */
const MAX_PAGE_BYTES = 200 * 1024;

let running: WebBaton[] = [];
afterEach(async () => {
  for (const web of running.splice(0)) await web.baton.stop({ cleanup: true });
});

async function start(options: Parameters<typeof startWebBaton>[0] = {}): Promise<WebBaton> {
  const web = await startWebBaton(options);
  running.push(web);
  return web;
}

/** Resolves with the answer to the upgrade: status 101 once the socket is open, else the refusal's status and headers. */
function upgrade(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.on("open", () => {
      socket.close();
      resolve({ status: 101, headers: {} });
    });
    socket.on("unexpected-response", (_request, response) => resolve({ status: response.statusCode ?? 0, headers: response.headers }));
    socket.on("error", (error) => reject(error));
  });
}

const upgradeStatus = async (url: string, headers: Record<string, string> = {}) => (await upgrade(url, headers)).status;

async function cookieFor(web: WebBaton): Promise<string> {
  const response = await fetch(web.url, { redirect: "manual" });
  expect(response.status).toBe(303);
  expect(response.headers.get("location")).toBe("/");
  const setCookie = response.headers.get("set-cookie") ?? "";
  expect(setCookie).toMatch(/HttpOnly/);
  expect(setCookie).toMatch(/SameSite=Strict/);
  expect(setCookie).not.toContain(new URL(web.url).searchParams.get("token")!);
  return setCookie.split(";")[0];
}

describe("web chat access", () => {
  it("prints a loopback URL with a token kept 0600 in the data dir and reused after a restart", async () => {
    const web = await start();
    expect(web.description).toMatch(/^Web chat: http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{20,}$/);
    const tokenFile = join(web.baton.dataDir, TOKEN_FILE_NAME);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const token = new URL(web.url).searchParams.get("token");
    expect(readFileSync(tokenFile, "utf8").trim()).toBe(token);
    const dataDir = web.baton.dataDir;
    await web.baton.stop();
    running = [];
    const again = await start({ dataDir });
    expect(new URL(again.url).searchParams.get("token")).toBe(token);
  });

  it("uses the configured token when there is one", async () => {
    const web = await start({ token: "a-configured-token-of-32-chars-xx" });
    expect(new URL(web.url).searchParams.get("token")).toBe("a-configured-token-of-32-chars-xx");
  });

  it("answers 401 to HTTP requests without the token or its cookie", async () => {
    const web = await start();
    const origin = `http://127.0.0.1:${web.port}`;
    for (const path of ["/", "/assets/app.js", "/assets/style.css", "/api/ping", "/nothing-here"]) {
      expect((await fetch(origin + path)).status, path).toBe(401);
    }
    expect((await fetch(`${origin}/?token=wrong-token-wrong-token`)).status).toBe(401);
    expect((await fetch(`${origin}/api/ping`, { headers: { cookie: "baton_x=forged" } })).status).toBe(401);
    // Without the cookie or the link's token, the token as a bearer: refused as every listener refuses one, with the page's headers kept.
    const refused = await fetch(`${origin}/api/ping`, { headers: { authorization: "Bearer wrong-token-wrong-token" } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(await refused.text()).toContain("open the link `baton start` printed");
    expect((await fetch(`${origin}/api/ping`)).headers.get("www-authenticate")).toBe('Bearer realm="baton-web"');

    const cookie = await cookieFor(web);
    const page = await fetch(`${origin}/`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(await page.text()).toContain('<script type="module" src="/assets/app.js">');
    expect((await fetch(`${origin}/assets/app.js`, { headers: { cookie } })).headers.get("content-type")).toMatch(/javascript/);
    const token = new URL(web.url).searchParams.get("token");
    expect((await fetch(`${origin}/api/ping`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });

  it("answers 401 to WebSocket upgrades without the cookie and 403 to other origins", async () => {
    const web = await start();
    const socketUrl = `ws://127.0.0.1:${web.port}/ws`;
    expect(await upgradeStatus(socketUrl)).toBe(401);
    expect(await upgradeStatus(socketUrl, { cookie: "baton_x=forged" })).toBe(401);
    const cookie = await cookieFor(web);
    expect(await upgradeStatus(socketUrl, { cookie, origin: "http://evil.example" })).toBe(403);
    expect(await upgradeStatus(socketUrl, { cookie, origin: `http://127.0.0.1:${web.port}` })).toBe(101);
  });

  it("checks the socket's upgrade as every other route: the same middleware, the same 401 for a missing or wrong token", async () => {
    const web = await start();
    const token = new URL(web.url).searchParams.get("token")!;
    const socketUrl = `ws://127.0.0.1:${web.port}/ws`;
    const missing = await upgrade(socketUrl);
    expect(missing.status).toBe(401);
    expect(missing.headers["www-authenticate"]).toBe('Bearer realm="baton-web"');
    expect(missing.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(await upgradeStatus(`${socketUrl}?token=wrong-token-wrong-token`)).toBe(401);
    expect(await upgradeStatus(socketUrl, { authorization: "Bearer wrong-token-wrong-token" })).toBe(401);
    expect(await upgradeStatus(socketUrl, { authorization: `Basic ${token}` })).toBe(400);
    // A socket anywhere else is refused the way an HTTP request is: 401 first, 404 once the token is right.
    expect(await upgradeStatus(`ws://127.0.0.1:${web.port}/elsewhere`)).toBe(401);
    expect(await upgradeStatus(`ws://127.0.0.1:${web.port}/elsewhere`, { authorization: `Bearer ${token}` })).toBe(404);
    expect(await upgradeStatus(socketUrl, { authorization: `Bearer ${token}` })).toBe(101);
    expect(await upgradeStatus(`${socketUrl}?token=${encodeURIComponent(token)}`)).toBe(101);
  });

  it("talks over the socket: hello, then a prompt answered by the agent", async () => {
    const web = await start();
    const cookie = await cookieFor(web);
    const socket = new WebSocket(`ws://127.0.0.1:${web.port}/ws`, { headers: { cookie } });
    const events: ServerEvent[] = [];
    socket.on("message", (data) => events.push(JSON.parse(String(data)) as ServerEvent));
    await new Promise((resolve) => socket.on("open", resolve));
    const waitFor = async (match: (e: ServerEvent) => boolean): Promise<ServerEvent> => {
      for (let waited = 0; waited < 10_000; waited += 20) {
        const found = events.find(match);
        if (found) return found;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`no such event; got ${JSON.stringify(events.map((e) => e.type))}`);
    };
    socket.send(JSON.stringify({ type: "send", conversation: "conv-123456", text: "too early" }));
    await waitFor((e) => e.type === "error" && /hello/.test(e.text));
    socket.send(JSON.stringify({ type: "hello", browser: "browser-1234" }));
    const welcome = await waitFor((e) => e.type === "welcome");
    expect(welcome.type === "welcome" && welcome.commands.map((c) => c.name)).toContain("status");
    socket.send(JSON.stringify({ type: "send", conversation: "conv-123456", text: "over the socket" }));
    await waitFor((e) => e.type === "message" && e.message.role === "agent" && /you said "over the socket"/.test(e.message.html));
    const summary = await waitFor((e) => e.type === "conversation" && e.conversation.info !== undefined);
    expect(summary.type === "conversation" && summary.conversation).toMatchObject({ id: "conv-123456", title: "over the socket", info: { agent: "demo", open: true } });
    // Forgetting drops the conversation from every browser's list and from disk.
    const historyFile = join(web.baton.dataDir, "web", "web", "conv-123456.jsonl");
    expect(existsSync(historyFile)).toBe(true);
    socket.send(JSON.stringify({ type: "forget", conversation: "conv-123456" }));
    await waitFor((e) => e.type === "forgotten" && e.conversation === "conv-123456");
    expect(existsSync(historyFile)).toBe(false);
    socket.send(JSON.stringify({ type: "send", conversation: "../../etc", text: "x" }));
    await waitFor((e) => e.type === "error" && /did not understand/.test(e.text));
    socket.close();
  });

  it("shows a host the core stopped on its own (idle shutdown) at once: the core tells the adapter, nothing polls", async () => {
    const web = await start({ config: { agents: { default: "demo", idle_shutdown: "400ms" } } });
    const cookie = await cookieFor(web);
    const socket = new WebSocket(`ws://127.0.0.1:${web.port}/ws`, { headers: { cookie } });
    const events: ServerEvent[] = [];
    socket.on("message", (data) => events.push(JSON.parse(String(data)) as ServerEvent));
    await new Promise((resolve) => socket.on("open", resolve));
    socket.send(JSON.stringify({ type: "hello", browser: "browser-1234" }));
    socket.send(JSON.stringify({ type: "send", conversation: "conv-idle01", text: "hi" }));
    const hostIs = async (host: string, withinMs: number) => {
      for (let waited = 0; waited < withinMs; waited += 20) {
        const last = events.filter((e) => e.type === "conversation" && e.conversation.id === "conv-idle01").at(-1);
        if (last?.type === "conversation" && last.conversation.info?.host === host) return Date.now();
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`the list never showed the host ${host}`);
    };
    const idleAt = await hostIs("idle", 10_000);
    // The idle timer is 400 ms; the list shows the stop within a second of it, not at a 5-s poll.
    const stoppedAt = await hostIs("stopped", 3_000);
    expect(stoppedAt - idleAt).toBeLessThan(2_000);
    socket.close();
  });

  it("refuses a port in use with a PlatformError that says what to change", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as { port: number }).port;
    const dataDir = mkdtempSync(join(tmpdir(), "baton-web-busy-"));
    try {
      const failure = await startWebBaton({ dataDir, port }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(PlatformError);
      expect((failure as PlatformError).userMessage).toMatch(/port is in use.*platforms\.web\.listen/);
    } finally {
      blocker.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("keeps the page under 200 KB", () => {
    const bytes = new PageAssets().totalBytes();
    expect(bytes).toBeGreaterThan(10_000);
    expect(bytes).toBeLessThan(MAX_PAGE_BYTES);
  });
});

// The one reading of a failed platform start every kind shares (refused stops the start;
// unreachable is retried), and the starter's backoff: capped, jittered, connected when the
// platform answers again, given up when it refuses. Real timers, short waits.
import { describe, expect, it } from "vitest";
import { PlatformError } from "../../src/kernel/errors.js";
import { silentLogger } from "../../src/kernel/log.js";
import { httpPlatformError, networkPlatformError, startFailureOf } from "../../src/platforms/kit/errors.js";
import { PlatformStarter, RETRY_FIRST_MS, RETRY_JITTER, RETRY_MAX_MS, retryDelayMs } from "../../src/bot/platform-start.js";
import type { PlatformAdapter, PlatformCore, StartInfo } from "../../src/platforms/contract.js";
import type { PlatformHealth } from "../../src/ops/snapshot.js";

describe("startFailureOf", () => {
  it("refused: a 401/403 answer, Slack's invalid_auth, a config that cannot work", () => {
    expect(startFailureOf(httpPlatformError("Telegram", "check the bot token", { status: 401, description: "Unauthorized" }))).toBe("refused");
    expect(startFailureOf(httpPlatformError("Discord", "log in", { status: 403, description: "Forbidden" }))).toBe("refused");
    expect(startFailureOf(new PlatformError("Slack refused the bot token (invalid_auth)", { reason: "refused" }))).toBe("refused");
    expect(startFailureOf(new Error("listen EADDRINUSE: the web chat's port is taken"))).toBe("refused");
  });

  it("unreachable: no answer (DNS, a refused or reset connection, a timeout), 5xx, 429", () => {
    expect(startFailureOf(networkPlatformError("Telegram", "check the bot token", "ENOTFOUND"))).toBe("unreachable");
    expect(startFailureOf(httpPlatformError("Matrix", "sync", { status: 502, description: "Bad Gateway" }))).toBe("unreachable");
    expect(startFailureOf(httpPlatformError("Slack", "auth.test", { status: 429, description: "ratelimited" }))).toBe("unreachable");
    // An SDK that let the socket error through, wrapped or not.
    expect(startFailureOf(Object.assign(new Error("getaddrinfo ENOTFOUND api.telegram.org"), { code: "ENOTFOUND" }))).toBe("unreachable");
    expect(startFailureOf(new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) }))).toBe("unreachable");
    expect(startFailureOf(new DOMException("The operation timed out.", "TimeoutError"))).toBe("unreachable");
  });
});

describe("retryDelayMs", () => {
  it("doubles from the first wait up to the cap, within the jitter", () => {
    expect(retryDelayMs(1, () => 0.5)).toBe(RETRY_FIRST_MS);
    expect(retryDelayMs(2, () => 0.5)).toBe(2 * RETRY_FIRST_MS);
    expect(retryDelayMs(50, () => 0.5)).toBe(RETRY_MAX_MS);
    for (let attempt = 1; attempt < 20; attempt++) {
      for (const r of [0, 0.3, 0.999]) {
        const base = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** (attempt - 1));
        const ms = retryDelayMs(attempt, () => r);
        expect(ms).toBeGreaterThanOrEqual(Math.floor(base * (1 - RETRY_JITTER)));
        expect(ms).toBeLessThanOrEqual(Math.ceil(base * (1 + RETRY_JITTER)));
      }
    }
  });
});

/** An adapter whose start() fails with each error of `failures` in turn, then connects. */
function flakyAdapter(failures: unknown[]): PlatformAdapter & { starts: number; stops: number } {
  const adapter = {
    name: "flaky",
    kind: "test",
    capabilities: { maxMessageLength: 1000, edits: false, buttons: false },
    starts: 0,
    stops: 0,
    async start(): Promise<StartInfo> {
      adapter.starts++;
      const failure = failures.shift();
      if (failure) throw failure;
      return { description: "flaky: connected" };
    },
    async stop() {
      adapter.stops++;
    },
    send: async () => ({ id: "1" }),
    edit: async () => undefined,
  };
  return adapter;
}

function starter(started: string[]): PlatformStarter {
  // random() = 0: the shortest wait of each step (0.8 s, 1.6 s, …).
  return new PlatformStarter({ log: silentLogger(), coreFor: () => ({}) as PlatformCore, started: (_a, info) => started.push(info.description), random: () => 0 });
}

const health = (): PlatformHealth => ({ name: "flaky", kind: "test", state: "starting", connected: false });
const unreachable = () => networkPlatformError("Test", "connect", "ECONNREFUSED");

describe("PlatformStarter", () => {
  it("marks an unreachable platform degraded, retries it, and connects it when it answers", async () => {
    const started: string[] = [];
    const adapter = flakyAdapter([unreachable(), unreachable()]);
    const h = health();
    const s = starter(started);
    await s.start(adapter, h);
    expect(h).toMatchObject({ state: "degraded", connected: false, attempts: 1, detail: "Test could not be reached to connect." });
    expect(started).toEqual([]);
    const deadline = Date.now() + 10_000;
    while (h.state !== "connected" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(h).toMatchObject({ state: "connected", connected: true });
    expect(h.attempts).toBeUndefined();
    expect(adapter.starts).toBe(3);
    // What each failed start opened was closed before the next.
    expect(adapter.stops).toBe(2);
    expect(started).toEqual(["flaky: connected"]);
    await s.stop();
  });

  it("rejects the start when the platform refuses", async () => {
    const refused = httpPlatformError("Test", "check the token", { status: 401, description: "Unauthorized" });
    const h = health();
    await expect(starter([]).start(flakyAdapter([refused]), h)).rejects.toBe(refused);
    expect(h).toMatchObject({ state: "failed", detail: "Test refused to check the token (401: Unauthorized)." });
  });

  it("gives up, as failed, on a platform that refuses on a retry; stop() ends the retries", async () => {
    const h = health();
    const s = starter([]);
    await s.start(flakyAdapter([unreachable(), new PlatformError("Test refused the token.", { reason: "refused" })]), h);
    const deadline = Date.now() + 5_000;
    while (h.state !== "failed" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(h).toMatchObject({ state: "failed", detail: "Test refused the token." });

    const never = flakyAdapter(Array.from({ length: 100 }, unreachable));
    const other = health();
    await s.start(never, other);
    await s.stop();
    const startsAtStop = never.starts;
    await new Promise((r) => setTimeout(r, 1_500));
    expect(never.starts).toBe(startsAtStop);
  });
});

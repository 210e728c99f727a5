// The ops listener of a running Baton (in-process, the demo agent as a real ACP process): /healthz
// and /metrics scraped while a turn runs, counters moving; /status; nothing secret in any answer.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PlatformError } from "../../src/kernel/errors.js";
import { MAX_NETWORK_ATTEMPTS } from "../../src/core/delivery/outbox.js";
import { startTestBaton, type TestBaton } from "../support/harness.js";
import { TestPlatform } from "../support/test-platform.js";

const running: TestBaton[] = [];
afterEach(async () => {
  for (const b of running.splice(0)) await b.stop({ cleanup: true });
});

async function start(platform: TestPlatform): Promise<{ baton: TestBaton; ops: string }> {
  const baton = await startTestBaton({ adapters: [platform], config: { ops: { listen: "127.0.0.1:0" } } });
  running.push(baton);
  expect(baton.daemon.opsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  return { baton, ops: baton.daemon.opsUrl! };
}

async function scrape(ops: string): Promise<string> {
  const response = await fetch(`${ops}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
}

/** The value of one sample line (`name{labels} value`), 0 when the series is absent. */
function sample(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("the ops listener", () => {
  it("with ops.token, /metrics and /status need the bearer token; /healthz stays open", async () => {
    const token = "ops-token-0123456789abcdef";
    const baton = await startTestBaton({ adapters: [new TestPlatform()], config: { ops: { listen: "127.0.0.1:0", token } } });
    running.push(baton);
    const ops = baton.daemon.opsUrl!;
    for (const path of ["/metrics", "/status"]) {
      const refused = await fetch(`${ops}${path}`);
      expect({ path, status: refused.status }).toEqual({ path, status: 401 });
      expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="baton-ops"');
      expect((await fetch(`${ops}${path}`, { headers: { authorization: "Bearer wrong-token-0123456789" } })).status).toBe(401);
      expect((await fetch(`${ops}${path}`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    }
    expect((await fetch(`${ops}/healthz`)).status).toBe(200);
    // `baton status` finds the token beside the URL, in the 0600 endpoint file.
    expect(JSON.parse(readFileSync(join(baton.dataDir, "ops.json"), "utf8"))).toMatchObject({ url: ops, token });
  });

  it("serves /healthz and /metrics during a turn, with the counters moving", async () => {
    const platform = new TestPlatform();
    const { baton, ops } = await start(platform);
    const health = await fetch(`${ops}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: "ok", platforms: [{ name: "test", kind: "test", connected: true }] });

    const before = await scrape(ops);
    expect(sample(before, 'baton_messages_in_total{platform="test"}')).toBe(0);
    // prom-client's default metrics: event-loop lag and resident memory.
    expect(before).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect(sample(before, "process_resident_memory_bytes")).toBeGreaterThan(10 * 1024 * 1024);

    const route = platform.route("metrics");
    await platform.say(route, "demo:slow 2");
    await platform.waitFor(route, /step 1/);
    await platform.say(route, "queued behind it");
    const during = await scrape(ops);
    expect(sample(during, 'baton_messages_in_total{platform="test"}')).toBe(2);
    expect(sample(during, "baton_turns_running")).toBe(1);
    expect(sample(during, "baton_agent_hosts_live")).toBe(1);
    expect(sample(during, "baton_prompts_queued")).toBe(1);
    expect(sample(during, 'baton_platform_connected{platform="test",kind="test"}')).toBe(1);
    const sentDuring = sample(during, 'baton_messages_out_total{platform="test",op="send"}');
    expect(sentDuring).toBeGreaterThan(0);

    await platform.waitFor(route, /you said "queued behind it"/, 20_000);
    const thread = baton.daemon.core.registry.threadForRoute(route)!;
    await baton.daemon.core.supervisor.drained(thread.id);
    const after = await until("both turns counted", async () => {
      const text = await scrape(ops);
      return sample(text, 'baton_turns_total{agent="demo",outcome="end_turn"}') === 2 ? text : undefined;
    });
    expect(sample(after, 'baton_turn_duration_seconds_count{agent="demo"}')).toBe(2);
    expect(sample(after, 'baton_turn_duration_seconds_bucket{le="1",agent="demo"}')).toBeLessThan(2);
    expect(sample(after, "baton_turns_running")).toBe(0);
    expect(sample(after, "baton_prompts_queued")).toBe(0);
    expect(sample(after, 'baton_messages_out_total{platform="test",op="send"}')).toBeGreaterThan(sentDuring);
    expect(sample(after, 'baton_messages_out_total{platform="test",op="edit"}')).toBeGreaterThan(0);
    // What the demo agent reported using: "demo:slow 2" and "queued behind it" in (a character a token), $0.0012 a turn.
    expect(sample(after, 'baton_agent_tokens_total{agent="demo",direction="input"}')).toBe("demo:slow 2".length + "queued behind it".length);
    expect(sample(after, 'baton_agent_tokens_total{agent="demo",direction="output"}')).toBeGreaterThan(0);
    expect(sample(after, 'baton_agent_cost_total{agent="demo",currency="USD"}')).toBeCloseTo(0.0024, 6);
  });

  it("counts pending approvals, pickups refused, and platform errors by reason (the platform turns degraded)", async () => {
    const platform = new TestPlatform();
    const { ops } = await start(platform);
    const route = platform.route("approvals");
    await platform.say(route, "demo:permission");
    await platform.waitFor(route, (m) => !!m.buttons);
    expect(sample(await scrape(ops), "baton_approvals_pending")).toBe(1);
    await platform.say(route, "/pickup ZZZZ");
    await platform.waitFor(route, /invalid or expired/);
    expect(sample(await scrape(ops), 'baton_pickups_total{outcome="refused"}')).toBe(1);

    // A refusal is counted once (never retried); a platform out of reach on every retry turns the platform unreachable.
    platform.failNext("send", new PlatformError("bad request", { reason: "refused" }));
    await platform.say(platform.route("other"), "/help");
    for (let i = 0; i < MAX_NETWORK_ATTEMPTS; i++) platform.failNext("send", new PlatformError("cannot reach the test platform", { reason: "network" }));
    await platform.say(platform.route("other"), "/help");
    const text = await until("the network failures counted", async () => {
      const t = await scrape(ops);
      return sample(t, 'baton_platform_errors_total{platform="test",reason="network"}') === MAX_NETWORK_ATTEMPTS ? t : undefined;
    });
    expect(sample(text, 'baton_platform_errors_total{platform="test",reason="refused"}')).toBe(1);
    expect(sample(text, 'baton_platform_connected{platform="test",kind="test"}')).toBe(0);
    expect(sample(text, 'baton_platform_state{platform="test",kind="test",state="degraded"}')).toBe(1);
    expect(sample(text, 'baton_platform_state{platform="test",kind="test",state="connected"}')).toBe(0);
    // Its only platform out of reach, this Baton serves no one: 503.
    const response = await fetch(`${ops}/healthz`);
    expect(response.status).toBe(503);
    const health = (await response.json()) as { status: string; platforms: Array<{ connected: boolean; detail?: string }> };
    expect(health.status).toBe("down");
    expect(health.platforms[0]).toMatchObject({ state: "degraded", connected: false, detail: "cannot reach the platform" });
    // The next call that goes through makes it connected again.
    await platform.say(platform.route("other"), "/help");
    expect(((await (await fetch(`${ops}/healthz`)).json()) as { status: string }).status).toBe("ok");
  });

  it("/status says what `baton status` prints, and no answer carries a secret", async () => {
    const platform = new TestPlatform();
    const { baton, ops } = await start(platform);
    const status = (await (await fetch(`${ops}/status`)).json()) as Record<string, unknown>;
    expect(status).toMatchObject({ state: "running", pid: process.pid, openThreads: 0, liveHosts: 0, maxLiveHosts: 8, counts: { messages_in: 0 } });
    const mcpToken = readFileSync(join(baton.dataDir, "mcp-token"), "utf8").trim();
    for (const path of ["/healthz", "/status", "/metrics"]) {
      expect(await (await fetch(`${ops}${path}`)).text(), path).not.toContain(mcpToken);
    }
    expect((await fetch(`${ops}/nope`)).status).toBe(404);
    expect((await fetch(`${ops}/healthz`, { method: "POST" })).status).toBe(405);
    const endpoint = JSON.parse(readFileSync(join(baton.dataDir, "ops.json"), "utf8")) as { url: string; pid: number };
    expect(endpoint).toEqual({ url: ops, pid: process.pid });
  });
});

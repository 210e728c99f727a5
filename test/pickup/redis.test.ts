// The same code and limit semantics on Redis (`store.kv: redis://…`). Uses BATON_TEST_REDIS_URL
// when given, else starts `redis-server` on a free loopback port when it is installed; skipped
// when neither is there.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PickupCodes } from "../../src/pickup/codes.js";
import { openHandoverKv } from "../../src/pickup/kv.js";
import { PickupLimits } from "../../src/pickup/limits.js";
import { TestPlatform } from "../support/test-platform.js";
import { redisAvailable, startRedis, type TestRedis } from "../support/redis.js";
import { startTestBaton } from "../support/harness.js";
import { callTool, codeIn, httpClient, removeTempDirs, tempDir, terminalDemoSession, AGENT_TURN_MS } from "./helpers.js";

// These tests drive real agent and CLI processes; a machine busy with other test runs is slow.
vi.setConfig({ testTimeout: 90_000 });

let redis: TestRedis | undefined;
let url: string | undefined;

beforeAll(async () => {
  if (!redisAvailable) return;
  redis = await startRedis();
  url = redis.url;
});

afterAll(async () => {
  await redis?.stop();
  removeTempDirs();
});

describe.skipIf(!redisAvailable)("handover store on Redis", () => {
  it("lets exactly one of two daemons' concurrent pickups win, and shares the sender limit", async () => {
    const a = await openHandoverKv(url!);
    const b = await openHandoverKv(url!);
    try {
      const issuer = new PickupCodes(a.codes);
      const other = new PickupCodes(b.codes);
      for (let round = 0; round < 10; round++) {
        const { code } = await issuer.issue({ agent: "demo", session: "s", cwd: "/tmp" });
        const results = await Promise.all([issuer.consume(code), other.consume(code), other.consume(code.toLowerCase())]);
        expect(results.filter(Boolean)).toHaveLength(1);
      }
      const sender = `test:${randomUUID()}`;
      const limitsA = new PickupLimits(a, { failedPerSenderPerMin: 5, failedTotalPerMin: 1000 });
      const limitsB = new PickupLimits(b, { failedPerSenderPerMin: 5, failedTotalPerMin: 1000 });
      for (let i = 0; i < 5; i++) {
        const admission = await (i % 2 ? limitsA : limitsB).admit(sender);
        expect(admission.ok).toBe(true);
        if (admission.ok) await admission.settle(false);
      }
      expect((await limitsA.admit(sender)).ok).toBe(false);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("a daemon with store.kv on Redis hands over end to end", async () => {
    const root = tempDir("baton-ws-");
    const platform = new TestPlatform();
    const baton = await startTestBaton({ adapters: [platform], config: { workspaces: { roots: [root], default: root }, store: { kv: url } } });
    const client = await httpClient(baton.dataDir);
    try {
      const session = terminalDemoSession(baton.dataDir, root, ["kept in redis"]);
      const prepared = await callTool(client, "prepare_handover", { cwd: root, agent_kind: "demo", session_id: session });
      const route = platform.route("phone");
      await platform.say(route, `/pickup ${codeIn(prepared.text)}`);
      await platform.waitFor(route, /Picked up Baton demo agent session/);
      await platform.say(route, "recall");
      await platform.waitFor(route, /1\. kept in redis/, AGENT_TURN_MS);
    } finally {
      await client.close();
      await baton.stop({ cleanup: true });
    }
  });
});

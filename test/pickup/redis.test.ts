// The same code and limit semantics on Redis (`store.kv: redis://…`). Uses BATON_TEST_REDIS_URL
// when given, else starts `redis-server` on a free loopback port when it is installed; skipped
// when neither is there.
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { which } from "../../src/kernel/process.js";
import { PickupCodes } from "../../src/pickup/codes.js";
import { openHandoverKv } from "../../src/pickup/kv.js";
import { PickupLimits } from "../../src/pickup/limits.js";
import { TestPlatform } from "../support/test-platform.js";
import { startTestBaton } from "../support/harness.js";
import { callTool, codeIn, httpClient, removeTempDirs, tempDir, terminalDemoSession, AGENT_TURN_MS } from "./helpers.js";

// These tests drive real agent and CLI processes; a machine busy with other test runs is slow.
vi.setConfig({ testTimeout: 90_000 });

const given = process.env.BATON_TEST_REDIS_URL;
const canStart = !given && which("redis-server") !== undefined;
let url = given;
let server: ChildProcess | undefined;

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

beforeAll(async () => {
  if (!canStart) return;
  const port = await freePort();
  server = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "pipe" });
  await new Promise<void>((resolve, reject) => {
    server!.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("Ready to accept connections") && resolve());
    server!.once("exit", (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
  url = `redis://127.0.0.1:${port}/15`;
});

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once("exit", resolve));
    server.kill();
    await exited;
  }
  removeTempDirs();
});

describe.skipIf(!given && !canStart)("handover store on Redis", () => {
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

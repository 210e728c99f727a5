// A real redis-server for tests of `store.kv: redis://…`: BATON_TEST_REDIS_URL when given, else one
// started on a free loopback port (no persistence) when redis-server is installed. Tests skip when
// neither is there (`redisAvailable`).
import { spawn, type ChildProcess } from "node:child_process";
import { which } from "../../src/kernel/process.js";
import { freePort } from "./sshd.js";

const given = process.env.BATON_TEST_REDIS_URL;

/** True when a test can have a Redis: one given, or redis-server on PATH. */
export const redisAvailable = given !== undefined || which("redis-server") !== undefined;

export interface TestRedis {
  url: string;
  stop(): Promise<void>;
}

/** The given Redis, or a redis-server started for the test (database 15); `stop` ends only what it started. */
export async function startRedis(): Promise<TestRedis> {
  if (given) return { url: given, stop: async () => undefined };
  const port = await freePort();
  const server: ChildProcess = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "pipe" });
  await new Promise<void>((resolve, reject) => {
    server.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("Ready to accept connections") && resolve());
    server.once("exit", (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}/15`,
    async stop() {
      if (server.exitCode !== null || server.signalCode !== null) return;
      const exited = new Promise((resolve) => server.once("exit", resolve));
      server.kill();
      await exited;
    },
  };
}

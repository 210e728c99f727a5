// A real redis-server for tests of `store.kv: redis://…`: BATON_TEST_REDIS_URL when given, else one
// started on a free loopback port (no persistence) when redis-server is installed. Tests skip when
// neither is there (`redisAvailable`).
import { spawn, type ChildProcess } from "node:child_process";
import { which } from "../../src/kernel/process.js";
import { startOnFreePort } from "./free-port.js";

const given = process.env.BATON_TEST_REDIS_URL;

/** True when a test can have a Redis: one given, or redis-server on PATH. */
export const redisAvailable = given !== undefined || which("redis-server") !== undefined;

export interface TestRedis {
  url: string;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 15_000;

/** The given Redis, or a redis-server started for the test (database 15); `stop` ends only what it started. */
export async function startRedis(): Promise<TestRedis> {
  if (given) return { url: given, stop: async () => undefined };
  // Another port when the one found free was taken before redis-server bound it.
  return startOnFreePort(async (port) => {
    const server: ChildProcess = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "pipe" });
    const stop = async () => {
      if (server.exitCode !== null || server.signalCode !== null) return;
      const exited = new Promise((resolve) => server.once("exit", resolve));
      server.kill();
      await exited;
    };
    await readyLine(server).catch(async (error: unknown) => {
      await stop();
      throw error;
    });
    return { url: `redis://127.0.0.1:${port}/15`, stop };
  });
}

/** Resolves at redis-server's ready line (which may come split over two reads of its output). */
function readyLine(server: ChildProcess): Promise<void> {
  let output = "";
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server was not ready within ${READY_TIMEOUT_MS} ms:\n${output}`)), READY_TIMEOUT_MS);
    server.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Ready to accept connections")) {
        clearTimeout(timer);
        resolve();
      }
    });
    server.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${output}`));
    });
  });
}

// A bare ACP client, the yardstick for Baton's real-agent figures: it spawns an agent CLI, sends
// initialize, session/new and a prompt with the ACP SDK's own stream, and notes when the first
// agent_message_chunk with text arrives. No chat, no MCP servers, no renderer: what any client
// must wait for at least.
import { spawn, type ChildProcess } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { existsSync } from "node:fs";
import { monotonicMs } from "../../src/kernel/clock.js";
import { treeCpuMs } from "./baton.js";

/** A step of the bare client that takes longer than this is a failure, not a figure. */
const STEP_TIMEOUT_MS = 120_000;
const STOP_GRACE_MS = 3_000;

export interface DirectTimes {
  /** Spawn → the first text of the answer, ms, the pause after session/new not counted. */
  coldMs: number;
  /** The first prompt of the new session, sent `settleMs` after session/new → its first text, ms (the part of coldMs after session/new). */
  firstPromptMs: number;
  /** Prompt sent on the live session → the first text of the answer, ms (one per warm prompt). */
  warmMs: number[];
  /** CPU time of the agent's processes from the first prompt sent to its end, ms; undefined where /proc is missing. */
  firstPromptCpuMs?: number;
  /** The same for each prompt on the live session. */
  warmCpuMs: number[];
}

/** CPU of the agent's process tree is read from /proc (Linux). */
const HAS_PROC = existsSync("/proc/self/task");

export interface DirectLaunch {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/**
 * One agent process: a cold prompt (spawn to first text), then `warm` more prompts on the same session.
 * The first prompt goes `settleMs` after session/new, as a person's message finds a session made ahead.
 */
export async function directRun(launch: DirectLaunch, prompt: (i: number) => string, warm: number, settleMs = 0): Promise<DirectTimes> {
  const spawnedAt = monotonicMs();
  const child = spawn(launch.command, launch.args, { cwd: launch.cwd, env: launch.env, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr = (stderr + d).slice(-4000)));
  let firstText: (() => void) | undefined;
  const connection = acp
    .client({ name: "baton-bench-direct" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      const update = params.update;
      if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text" && update.content.text) firstText?.();
    })
    .onRequest(acp.methods.client.session.requestPermission, () => ({ outcome: { outcome: "cancelled" as const } }))
    .connect(acp.ndJsonStream(Writable.toWeb(child.stdin!), Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>));
  const step = <T>(what: string, work: Promise<T>): Promise<T> =>
    Promise.race([
      work,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`bench: ${launch.command} ${what} took over ${STEP_TIMEOUT_MS} ms; stderr: ${stderr}`)), STEP_TIMEOUT_MS).unref()),
    ]);
  const cpu = () => (HAS_PROC && child.pid ? treeCpuMs(child.pid) : Number.NaN);
  /** Sends a prompt; resolves with when it was sent, when its first text came (monotonicMs) and the agent's CPU for the whole prompt. */
  const ask = async (sessionId: string, text: string): Promise<{ sent: number; at: number; cpuMs: number }> => {
    const cpuBefore = cpu();
    const sent = monotonicMs();
    const first = new Promise<number>((resolve) => (firstText = () => resolve(monotonicMs())));
    const done = connection.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
    const at = await step("prompt", Promise.race([first, done.then(() => Promise.reject(new Error(`bench: ${launch.command} answered without text`)))]));
    firstText = undefined;
    await step("prompt end", done);
    return { sent, at, cpuMs: cpu() - cpuBefore };
  };
  try {
    await step(
      "initialize",
      connection.agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: "baton-bench-direct", version: "0.0.0" },
      }),
    );
    const { sessionId } = await step("session/new", connection.agent.request(acp.methods.agent.session.new, { cwd: launch.cwd, mcpServers: [] }));
    const opened = monotonicMs();
    if (settleMs > 0) await new Promise((resolve) => setTimeout(resolve, settleMs));
    const cold = await ask(sessionId, prompt(0));
    const warmMs: number[] = [];
    const warmCpuMs: number[] = [];
    for (let i = 1; i <= warm; i++) {
      const { sent, at, cpuMs } = await ask(sessionId, prompt(i));
      warmMs.push(at - sent);
      if (HAS_PROC) warmCpuMs.push(cpuMs);
    }
    return { coldMs: opened - spawnedAt + (cold.at - cold.sent), firstPromptMs: cold.at - cold.sent, warmMs, firstPromptCpuMs: HAS_PROC ? cold.cpuMs : undefined, warmCpuMs };
  } finally {
    connection.close();
    await stop(child);
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.stdin?.end();
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}

// Prompts that shape a benchmark's load: `demo:quiet` answers nothing; `demo:stream BYTES [CHUNK
// [INTERVAL_MS]]` streams that much text without holding it in memory; `demo:burn SECONDS
// [PROCESSES]` keeps CPU-bound processes of the agent's own running that long, as a build or a test
// suite the agent started would (they inherit the agent's CPU priority, as real ones do); `demo:job
// UNITS` runs a fixed amount of CPU-bound work in a process of its own and says how long it took.
import { spawn } from "node:child_process";
import type * as acp from "@agentclientprotocol/sdk";
import { sleep } from "./sleep.js";

/** What a load prompt needs of its turn. */
export interface LoadTurn {
  sessionId: string;
  signal: AbortSignal;
  replied: string[];
  chunk(text: string): Promise<void>;
  streamEnded?: () => void;
}

/** Answers a load prompt; undefined when `command` (lower case) is not one. */
export async function loadTurn(turn: LoadTurn, command: string): Promise<acp.StopReason | undefined> {
  if (command.startsWith("demo:quiet")) return "end_turn";
  const streamed = parseStreamRequest(command);
  if (streamed) return streamTurn(turn, streamed);
  const burn = /^demo:burn\s+(\d+)(?:\s+(\d+))?$/.exec(command);
  if (burn) return burnTurn(turn, Number(burn[1]) * 1000, burn[2] ? Number(burn[2]) : 1);
  const job = /^demo:job\s+(\d+)$/.exec(command);
  if (job) return jobTurn(turn, Number(job[1]));
  return undefined;
}

async function streamTurn(turn: LoadTurn, request: StreamRequest): Promise<acp.StopReason> {
  let bytes = 0;
  for (const piece of streamChunks(request, turn.sessionId)) {
    if (turn.signal.aborted) return "cancelled";
    await turn.chunk(piece);
    bytes += piece.length;
    if (request.intervalMs > 0) await sleep(request.intervalMs, turn.signal);
  }
  await turn.chunk("\n\nEnd of stream.\n");
  turn.streamEnded?.();
  // Only the size is kept: the session store is not the place for megabytes of filler.
  turn.replied.push(`[streamed ${bytes} bytes]`);
  return "end_turn";
}

/**
 * Each process spins until its time is up or the agent is gone (asked with a signal 0 every ~0.1 ms
 * of work), so none outlives an agent that was killed; a cancelled turn kills them. The agent passes
 * its own pid: a burner's `process.ppid` is already 1 when the agent dies before Node has started.
 */
const BURNER = `const end = Date.now() + Number(process.argv[1]), agent = Number(process.argv[2]);
const alive = () => { try { process.kill(agent, 0); return true; } catch { return false; } };
while (Date.now() < end && alive()) for (let i = 0; i < 1e5; i++);`;

async function burnTurn(turn: LoadTurn, ms: number, processes: number): Promise<acp.StopReason> {
  const burners = Array.from({ length: processes }, () => spawn(process.execPath, ["-e", BURNER, String(ms), String(process.pid)], { stdio: "ignore" }));
  const ended = Promise.all(burners.map((b) => new Promise((resolve) => b.once("exit", resolve).once("error", resolve))));
  const kill = () => {
    for (const b of burners) b.kill("SIGKILL");
  };
  turn.signal.addEventListener("abort", kill, { once: true });
  try {
    await turn.chunk(`Keeping ${processes} CPU-bound process${processes === 1 ? "" : "es"} busy for ${ms / 1000} s.`);
    await ended;
  } finally {
    turn.signal.removeEventListener("abort", kill);
  }
  if (turn.signal.aborted) return "cancelled";
  await turn.chunk(" Done.");
  return "end_turn";
}

/**
 * UNITS million square roots (about 2 ms of CPU each on the bench's machine), then the process's
 * own CPU time on stdout. It stops early when the agent is gone (asked every unit).
 */
/** Where a `demo:job` process's command line says what it is (the bench finds a job that runs on this way). */
export const JOB_MARKER = "/* demo:job */";
const JOB = `${JOB_MARKER} const units = Number(process.argv[1]), agent = Number(process.argv[2]);
const alive = () => { try { process.kill(agent, 0); return true; } catch { return false; } };
let x = 0;
for (let u = 0; u < units && alive(); u++) for (let i = 1; i <= 1e6; i++) x += Math.sqrt(i);
const { user, system } = process.cpuUsage();
process.stdout.write(x > 0 ? String(Math.round((user + system) / 1000)) : "0");`;

/** Runs the job as a command the agent started would run (at the agent's CPU priority), timed from spawn to exit. */
async function jobTurn(turn: LoadTurn, units: number): Promise<acp.StopReason> {
  const startedAt = performance.now();
  const child = spawn(process.execPath, ["-e", JOB, String(units), String(process.pid)], { stdio: ["ignore", "pipe", "ignore"] });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => (out += text));
  const kill = () => child.kill("SIGKILL");
  turn.signal.addEventListener("abort", kill, { once: true });
  let killed: NodeJS.Signals | null = null;
  try {
    await new Promise((resolve) => child.once("close", (_code, signal) => resolve((killed = signal))).once("error", resolve));
  } finally {
    turn.signal.removeEventListener("abort", kill);
  }
  if (turn.signal.aborted) return "cancelled";
  const wallMs = Math.round(performance.now() - startedAt);
  await turn.chunk(killed ? `CPU-bound job of ${units} units killed (${killed}) after ${wallMs} ms.` : `CPU-bound job of ${units} units done in ${wallMs} ms (its CPU time: ${out} ms).`);
  return "end_turn";
}

interface StreamRequest {
  bytes: number;
  chunkBytes: number;
  intervalMs: number;
}

const DEFAULT_STREAM_CHUNK_BYTES = 1024;
const DEFAULT_STREAM_INTERVAL_MS = 25;
const SIZE_UNITS: Record<string, number> = { "": 1, k: 1024, m: 1024 * 1024 };

/** Parses `demo:stream 50m 65536 0`; undefined when the prompt is not one. */
function parseStreamRequest(text: string): StreamRequest | undefined {
  const match = /^demo:stream\s+(\d+)([km]?)(?:\s+(\d+)([km]?))?(?:\s+(\d+))?$/i.exec(text.trim());
  if (!match) return undefined;
  const size = (n: string, unit: string) => Number(n) * SIZE_UNITS[unit.toLowerCase()];
  return {
    bytes: size(match[1], match[2]),
    chunkBytes: match[3] ? Math.max(1, size(match[3], match[4])) : DEFAULT_STREAM_CHUNK_BYTES,
    intervalMs: match[5] ? Number(match[5]) : DEFAULT_STREAM_INTERVAL_MS,
  };
}

/**
 * Markdown paragraphs, `bytes` long in all, handed out `chunkBytes` at a time. Each names `source`
 * (the session): answers streaming side by side differ, as real ones do, so no cache keyed by the
 * text can serve one chat with the work done for another.
 */
function* streamChunks(request: StreamRequest, source: string): Generator<string> {
  const paragraph = (n: number) => `Paragraph ${n} of ${source}: the agent keeps writing so that a benchmark has a long answer to deliver, with **bold**, \`code\` and plain words.\n\n`;
  let buffered = "";
  let paragraphs = 0;
  for (let sent = 0; sent < request.bytes; ) {
    while (buffered.length < request.chunkBytes) buffered += paragraph(++paragraphs);
    const size = Math.min(request.chunkBytes, request.bytes - sent);
    yield buffered.slice(0, size);
    buffered = buffered.slice(size);
    sent += size;
  }
}

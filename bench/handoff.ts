// `baton handoff list` as a user runs it: a fresh process over 2,000 generated sessions (about
// 1 GB of Claude Code and Codex transcripts), timed from spawn to exit. It only works because
// listing reads heads and tails, not whole files. The fixture is generated once under the OS temp
// dir and kept between runs when BATON_BENCH_KEEP_FIXTURES=1 (writing 1 GB takes a while).
import { spawn } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { monotonicMs } from "../src/kernel/clock.js";
import { CLI, NODE_FLAGS, REPO_ROOT } from "./lib/baton.js";
import { figure, type Figure } from "./lib/figure.js";

export interface HandoffScale {
  sessions: number;
  /** Average transcript size; 2,000 × 512 KiB ≈ 1 GB. */
  avgSessionBytes: number;
  runs: number;
}

export const HANDOFF_FULL: HandoffScale = { sessions: 2_000, avgSessionBytes: 512 * 1024, runs: 20 };
export const HANDOFF_TINY: HandoffScale = { sessions: 20, avgSessionBytes: 8 * 1024, runs: 2 };

/** Bump when the generated layout changes, so a stale fixture is rebuilt rather than reused. */
const FIXTURE_VERSION = 2;
/** The sessions' activity is spread over four weeks, each at its own minute. */
const FIXTURE_START_MS = Date.UTC(2026, 10, 1);
const FIXTURE_SPAN_MS = 28 * 24 * 3600_000;

/** Ids that differ in their first 8 characters, as the listing's short ids do. */
function uuidFor(i: number): string {
  return `${i.toString(16).padStart(8, "0")}-0000-4000-8000-${i.toString(16).padStart(12, "0")}`;
}

async function writeTranscript(file: string, lines: Iterable<string>): Promise<void> {
  mkdirSync(path.dirname(file), { recursive: true });
  const out = createWriteStream(file);
  for (const line of lines) if (!out.write(line)) await new Promise<void>((r) => out.once("drain", () => r()));
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

/** Claude Code and Codex transcripts, half each, sizes spread around the average. */
function* claudeLines(id: string, cwd: string, bytes: number, at: string): Generator<string> {
  const pad = "lorem ipsum dolor sit amet ".repeat(150);
  let written = 0;
  for (let i = 0; written < bytes; i++) {
    const line = `${JSON.stringify({ type: i % 2 ? "assistant" : "user", sessionId: id, cwd, gitBranch: "main", timestamp: at, message: { role: i % 2 ? "assistant" : "user", content: i % 2 ? [{ type: "text", text: pad }] : `step ${i}: ${pad}` } })}\n`;
    written += line.length;
    yield line;
  }
}

function* codexLines(id: string, cwd: string, bytes: number, at: string): Generator<string> {
  const pad = "consectetur adipiscing elit ".repeat(150);
  yield `${JSON.stringify({ timestamp: at, type: "session_meta", payload: { id, cwd, cli_version: "0.63.0", git: { branch: "main" } } })}\n`;
  let written = 0;
  for (let i = 0; written < bytes; i++) {
    const line = `${JSON.stringify({ timestamp: at, type: "event_msg", payload: { type: i % 2 ? "agent_message" : "user_message", message: `step ${i}: ${pad}` } })}\n`;
    written += line.length;
    yield line;
  }
}

async function ensureFixture(root: string, { sessions: SESSIONS, avgSessionBytes: AVG_SESSION_BYTES }: HandoffScale): Promise<{ home: string; bytes: number }> {
  const home = path.join(root, "home");
  const marker = path.join(root, `complete-v${FIXTURE_VERSION}.json`);
  if (existsSync(marker)) return { home, bytes: (JSON.parse(await fs.readFile(marker, "utf8")) as { bytes: number }).bytes };
  await fs.rm(root, { recursive: true, force: true });
  let bytes = 0;
  for (let i = 0; i < SESSIONS; i++) {
    const id = uuidFor(i);
    const cwd = `/work/project-${i % 40}`;
    // Sizes from 0.25× to 1.75× the average keep the total near 1 GB.
    const size = Math.round(AVG_SESSION_BYTES * (0.25 + (1.5 * ((i * 7919) % 1000)) / 1000));
    bytes += size;
    const at = new Date(FIXTURE_START_MS + Math.floor((((i * 7919) % SESSIONS) / SESSIONS) * FIXTURE_SPAN_MS));
    const day = String(at.getUTCDate()).padStart(2, "0");
    const file =
      i % 2 === 0
        ? path.join(home, ".claude", "projects", `-work-project-${i % 40}`, `${id}.jsonl`)
        : path.join(home, ".codex", "sessions", "2026", "11", day, `rollout-2026-11-${day}T11-00-00-${id}.jsonl`);
    await writeTranscript(file, (i % 2 === 0 ? claudeLines : codexLines)(id, cwd, size, at.toISOString()));
    // A transcript's mtime is its last append, as an agent's own writes leave it.
    await fs.utimes(file, at, at);
  }
  await fs.writeFile(marker, JSON.stringify({ bytes }));
  return { home, bytes };
}

export async function benchHandoffList(scale: HandoffScale): Promise<Figure[]> {
  const root = path.join(os.tmpdir(), `baton-bench-handoff-list-${scale.sessions}`);
  const { home, bytes } = await ensureFixture(root, scale);
  try {
    // One untimed run warms the page cache, as any earlier command in a shell would have.
    const first = await runList(home);
    const listed = first.stdout.split("\n").filter((line) => /\b[0-9a-f]{8}\b/.test(line)).length;
    if (first.code !== 0 || listed === 0) throw new Error(`bench: \`baton handoff list\` exited ${first.code} listing ${listed} sessions:\n${first.stdout}${first.stderr}`);
    const times: number[] = [];
    const floor: number[] = [];
    // Node's own start, run in turn with the command: how much of the figure is Baton's.
    for (let i = 0; i < scale.runs; i++) {
      times.push((await runList(home)).ms);
      floor.push((await runNode(home, ["-e", "0"])).ms);
    }
    const gb = (bytes / 1024 ** 3).toFixed(2);
    // Set on some machines (and on this project's): Node then reads those certificates at every start.
    const extraCerts = process.env.NODE_EXTRA_CA_CERTS ? ", NODE_EXTRA_CA_CERTS set (Node loads it at every start)" : "";
    return [
      figure(
        {
          id: "handoff-list",
          label: "`baton handoff list`",
          unit: "ms",
          definition: `the command in a fresh process (spawn → exit), ${scale.sessions.toLocaleString("en")} sessions / ${gb} GB of transcripts, page cache warm`,
        },
        times,
        { on: "median", below: 200, text: "< 200 ms" },
      ),
      figure(
        {
          id: "handoff-list-node",
          label: "… `node -e 0` beside it",
          unit: "ms",
          definition: `Node alone with the same flags and environment${extraCerts}, run in turn with the command: the part of it that is not Baton's`,
        },
        floor,
      ),
    ];
  } finally {
    // 1 GB is a lot to leave in the temp dir: kept only when asked, to save regenerating it.
    if (process.env.BATON_BENCH_KEEP_FIXTURES !== "1") await fs.rm(root, { recursive: true, force: true });
  }
}

function runList(home: string): Promise<{ ms: number; code: number | null; stdout: string; stderr: string }> {
  return runNode(home, [CLI, "handoff", "list"]);
}

async function runNode(home: string, args: string[]): Promise<{ ms: number; code: number | null; stdout: string; stderr: string }> {
  const started = monotonicMs();
  const child = spawn(process.execPath, [...NODE_FLAGS, ...args], { cwd: REPO_ROOT, env: { ...process.env, HOME: home }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  return { ms: monotonicMs() - started, code, stdout, stderr };
}

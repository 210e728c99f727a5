// Bench: `handoff list` over 2,000 generated sessions (≈ 1 GB of transcripts) must take < 500 ms,
// which only works because listing reads heads and tails, not whole files. The fixtures are
// generated once under the OS temp dir and reused by later runs (writing 1 GB takes a while).

import { createWriteStream, existsSync, mkdirSync, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { listSessions } from "../agents/stores/index.js";

/** Bump when the generated layout changes, so a stale fixture is rebuilt rather than reused. */
const FIXTURE_VERSION = 1;
const SESSIONS = 2_000;
/** Average transcript size; 2,000 × 512 KiB ≈ 1 GB. */
const AVG_SESSION_BYTES = 512 * 1024;
const RUNS = 5;
const TARGET_MS = 500;

function uuidFor(i: number): string {
  const hex = i.toString(16).padStart(12, "0");
  return `b${hex.slice(0, 7)}-0000-4000-8000-${hex}`;
}

async function writeTranscript(file: string, lines: Iterable<string>): Promise<void> {
  mkdirSync(path.dirname(file), { recursive: true });
  const out = createWriteStream(file);
  for (const line of lines) if (!out.write(line)) await new Promise<void>((r) => out.once("drain", () => r()));
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

/** Claude Code and Codex transcripts, half each, sizes spread around the average. */
function* claudeLines(id: string, cwd: string, bytes: number, day: number): Generator<string> {
  const at = new Date(Date.UTC(2026, 10, 1 + (day % 28), 10)).toISOString();
  const pad = "lorem ipsum dolor sit amet ".repeat(150);
  let written = 0;
  for (let i = 0; written < bytes; i++) {
    const line = JSON.stringify({ type: i % 2 ? "assistant" : "user", sessionId: id, cwd, gitBranch: "main", timestamp: at, message: { role: i % 2 ? "assistant" : "user", content: i % 2 ? [{ type: "text", text: pad }] : `step ${i}: ${pad}` } }) + "\n";
    written += line.length;
    yield line;
  }
}

function* codexLines(id: string, cwd: string, bytes: number, day: number): Generator<string> {
  const at = new Date(Date.UTC(2026, 10, 1 + (day % 28), 11)).toISOString();
  const pad = "consectetur adipiscing elit ".repeat(150);
  yield JSON.stringify({ timestamp: at, type: "session_meta", payload: { id, cwd, cli_version: "0.63.0", git: { branch: "main" } } }) + "\n";
  let written = 0;
  for (let i = 0; written < bytes; i++) {
    const line = JSON.stringify({ timestamp: at, type: "event_msg", payload: { type: i % 2 ? "agent_message" : "user_message", message: `step ${i}: ${pad}` } }) + "\n";
    written += line.length;
    yield line;
  }
}

async function ensureFixture(root: string): Promise<{ home: string; bytes: number }> {
  const home = path.join(root, "home");
  const marker = path.join(root, `complete-v${FIXTURE_VERSION}.json`);
  if (existsSync(marker)) return { home, bytes: (JSON.parse(await fs.readFile(marker, "utf8")) as { bytes: number }).bytes };
  await fs.rm(root, { recursive: true, force: true });
  let bytes = 0;
  for (let i = 0; i < SESSIONS; i++) {
    const id = uuidFor(i);
    const cwd = `/work/project-${i % 40}`;
    // Sizes from 0.25× to 1.75× the average keep the total near 1 GB.
    const size = Math.round(AVG_SESSION_BYTES * (0.25 + 1.5 * ((i * 7919) % 1000) / 1000));
    bytes += size;
    if (i % 2 === 0) {
      await writeTranscript(path.join(home, ".claude", "projects", `-work-project-${i % 40}`, `${id}.jsonl`), claudeLines(id, cwd, size, i));
    } else {
      const day = String(1 + (i % 28)).padStart(2, "0");
      await writeTranscript(path.join(home, ".codex", "sessions", "2026", "11", day, `rollout-2026-11-${day}T11-00-00-${id}.jsonl`), codexLines(id, cwd, size, i));
    }
  }
  await fs.writeFile(marker, JSON.stringify({ bytes }));
  return { home, bytes };
}

export async function benchHandoffList(): Promise<Array<{ name: string; value: number; unit: string; target?: string; ok?: boolean }>> {
  const root = path.join(os.tmpdir(), "baton-bench-handoff-list");
  const { home, bytes } = await ensureFixture(root);
  const opts = { home, env: {}, dataDir: path.join(home, ".baton"), limit: 0 };
  // One untimed pass warms the page cache, as a second `handoff list` in a shell would be.
  const first = await listSessions(opts);
  if (first.sessions.length !== SESSIONS) throw new Error(`bench fixture lists ${first.sessions.length} sessions, expected ${SESSIONS}`);
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    const before = process.cpuUsage();
    await listSessions(opts);
    const used = process.cpuUsage(before);
    times.push(performance.now() - start);
    cpu.push((used.user + used.system) / 1000);
  }
  // 1 GB is a lot to leave in the temp dir: kept only when asked, to save regenerating it.
  if (process.env.BATON_BENCH_KEEP_FIXTURES !== "1") await fs.rm(root, { recursive: true, force: true });
  const median = (xs: number[]): number => Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]);
  const wall = median(times);
  return [
    { name: "handoff list: 2,000 sessions, wall time (median of 5)", value: wall, unit: "ms", target: `< ${TARGET_MS} ms`, ok: wall < TARGET_MS },
    // CPU time is reported too: on a shared, loaded machine wall time mostly measures the neighbours.
    { name: "handoff list: 2,000 sessions, CPU time (median of 5)", value: median(cpu), unit: "ms" },
    { name: "handoff list: transcript bytes on disk", value: Math.round(bytes / (1024 * 1024)), unit: "MiB" },
  ];
}

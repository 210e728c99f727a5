// What a multi-agent turn costs: a fresh thread's prompt `demo:subagents` (its agent starts, calls
// initialize_subagents over MCP, two subagent processes start, answer and stop, their reports come
// back through wait_for_subagents) until the agent's answer is complete, beside a plain first turn
// of a fresh thread. The difference is what two subagents add: their starts, sessions and the MCP
// round trips; each subagent process start is most of it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { parseConfigText } from "../src/config/load.js";
import { startDaemon } from "../src/bot/daemon.js";
import { silentLogger } from "../src/kernel/log.js";
import { TestPlatform } from "../test/support/test-platform.js";
import { median, type BenchResult } from "./types.js";

const SAMPLES = 3;
const TURN_TIMEOUT_MS = 120_000;

export async function benchSubagents(): Promise<BenchResult[]> {
  const dataDir = mkdtempSync(join(tmpdir(), "baton-bench-subagents-"));
  const platform = new TestPlatform("bench", { typingIntervalMs: undefined });
  const config = {
    agents: { default: "demo" },
    access: { allow: ["test:alice"] },
    rendering: { flush_debounce_ms: 0, min_edit_gap_ms: 0 },
    workspaces: { roots: [tmpdir()], default: tmpdir() },
  };
  const daemon = await startDaemon({
    loaded: parseConfigText(stringify(config), "bench.yaml", {}),
    dataDir,
    log: silentLogger(),
    extraAdapters: [platform],
    env: { ...process.env, BATON_DATA_DIR: dataDir },
  });
  const route = platform.route("chat");
  const turn = async (prompt: string, done: RegExp): Promise<number> => {
    await platform.say(route, "/new"); // a fresh thread: no agent process yet
    const thread = daemon.core.registry.threadForRoute(route)!;
    const started = performance.now();
    await platform.say(route, prompt);
    await daemon.core.supervisor.drained(thread.id);
    const elapsed = performance.now() - started;
    const last = platform.on(route).at(-1)?.text ?? "";
    if (!done.test(platform.transcript(route))) throw new Error(`unexpected answer: ${last}`);
    return elapsed;
  };
  const kinds: Array<[string, RegExp]> = [
    ["hello", /you said "hello"/],
    ["demo:subagents", /- beta \(done\)/],
  ];
  try {
    const deadline = Date.now() + TURN_TIMEOUT_MS * SAMPLES;
    for (const [prompt, done] of kinds) await turn(prompt, done); // warm-up
    const samples: number[][] = kinds.map(() => []);
    for (let i = 0; i < SAMPLES && Date.now() < deadline; i++) {
      for (const [k, [prompt, done]] of kinds.entries()) samples[k].push(await turn(prompt, done));
    }
    const [single, multi] = samples.map(median);
    return [
      { name: `first turn of a fresh thread, demo agent (median of ${samples[0].length})`, value: single, unit: "ms" },
      { name: `multi-agent turn of a fresh thread: agent + 2 subagents, prompt → reports in the answer (median of ${samples[1].length})`, value: multi, unit: "ms" },
    ];
  } finally {
    await daemon.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

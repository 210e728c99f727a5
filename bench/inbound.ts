// Inbound message → ACP session/prompt sent, with 1,000 open threads in the registry and live
// demo-agent hosts. The clock starts when the platform hands the message to the core and stops
// when the host issues session/prompt to the agent process.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { AgentHost } from "../src/agents/host.js";
import { parseConfigText } from "../src/config/load.js";
import { startDaemon } from "../src/bot/daemon.js";
import { silentLogger } from "../src/kernel/log.js";
import { TestPlatform } from "../test/support/test-platform.js";
import type { BenchResult } from "./types.js";

const OPEN_THREADS = 1_000;
const LIVE_ROUTES = 8;
const SAMPLES = 400;

export async function benchInbound(): Promise<BenchResult[]> {
  const dataDir = mkdtempSync(join(tmpdir(), "baton-bench-inbound-"));
  const platform = new TestPlatform("bench", { typingIntervalMs: undefined });
  const config = { agents: { default: "demo", max_live_hosts: LIVE_ROUTES }, access: { allow: ["test:alice"] }, rendering: { flush_debounce_ms: 5, min_edit_gap_ms: 0 }, workspaces: { roots: [tmpdir(), process.cwd()], default: process.cwd() } };
  const loaded = parseConfigText(stringify(config), "bench.yaml", {});
  const daemon = await startDaemon({ loaded, dataDir, log: silentLogger(), extraAdapters: [platform], env: { ...process.env, BATON_DATA_DIR: dataDir } });
  const registry = daemon.core.registry;
  for (let i = 0; i < OPEN_THREADS; i++) await registry.create({ workspace: process.cwd(), agent: "demo" }, platform.route(`idle-${i}`));

  // Time stamps: message handed to the core → session/prompt issued.
  let handedAt = 0;
  const samples: number[] = [];
  const original = AgentHost.prototype.prompt;
  AgentHost.prototype.prompt = function (this: AgentHost, prompt) {
    if (handedAt) samples.push(performance.now() - handedAt);
    handedAt = 0;
    return original.call(this, prompt);
  };
  const routes = Array.from({ length: LIVE_ROUTES }, (_, i) => platform.route(`live-${i}`));
  try {
    // Warm up: start every live host once (spawn time is not what this measures).
    for (const route of routes) {
      await platform.say(route, "warm up");
      await daemon.core.supervisor.drained(registry.threadForRoute(route)!.id);
    }
    samples.length = 0;
    for (let i = 0; i < SAMPLES; i++) {
      const route = routes[i % routes.length];
      handedAt = performance.now();
      await platform.say(route, `message ${i}`);
      await daemon.core.supervisor.drained(registry.threadForRoute(route)!.id);
    }
  } finally {
    AgentHost.prototype.prompt = original;
    await daemon.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  samples.sort((a, b) => a - b);
  const pct = (p: number) => samples[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))];
  return [
    { name: `inbound → ACP prompt sent, ${OPEN_THREADS.toLocaleString("en")} open threads, p50`, value: pct(50), unit: "ms" },
    { name: `inbound → ACP prompt sent, ${OPEN_THREADS.toLocaleString("en")} open threads, p99`, value: pct(99), unit: "ms", target: "< 5 ms", ok: pct(99) < 5 },
  ];
}

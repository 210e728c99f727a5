// Runs the real Baton core in-process with the given adapters and the bundled demo agent (a real
// ACP process), on a fresh data dir. What tests of every platform build on.
// In-process on purpose, from src: the tests that use it reach what the CLI does not expose (the
// test platform, an adapter under contract, the supervisor, a damaged event log, a store or fake
// injected). The end-to-end tests, what a user runs, start bin/baton.js instead
// (test/support/shipped-baton.ts).
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import type { CommonPlatformSettings, PlatformAdapter } from "../../src/platforms/contract.js";
import { parseConfigText, type LoadedConfig } from "../../src/config/load.js";
import { startDaemon, type Daemon } from "../../src/bot/daemon.js";
import { createLogger, silentLogger, type Logger } from "../../src/kernel/log.js";
import { stringify } from "yaml";
import type { EventLogStore } from "../../src/threads/store.js";
import { testTempDir } from "./temp.js";

export interface TestBaton {
  dataDir: string;
  daemon: Daemon;
  /** Stops the daemon (hosts, adapters); keeps the data dir unless `cleanup` is true. */
  stop(options?: { cleanup?: boolean }): Promise<void>;
}

export interface TestBatonOptions {
  adapters: Array<PlatformAdapter | { adapter: PlatformAdapter; settings: Partial<CommonPlatformSettings> }>;
  /** Config as an object, merged over the test defaults (demo agent, test users allowed, fast rendering). */
  config?: Record<string, unknown>;
  /** Reuse a data dir (restart tests). */
  dataDir?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Where the daemon logs (default: nowhere, or stderr with BATON_TEST_LOG set). */
  log?: Logger;
  /** The event log (default: the JSONL log in the data dir). */
  store?: (dataDir: string) => EventLogStore;
  /** The clock of limits per person (ms since the epoch), for tests that move time. */
  now?: () => number;
}

export const ALLOWED_TEST_USERS = ["test:alice", "test:bob", "telegram:111", "slack:U111"];

/** The config a test Baton runs with: the tests' defaults under `options.config` (also what a test reloads). */
export function testConfig(options: Pick<TestBatonOptions, "config" | "cwd">): LoadedConfig {
  const config: Record<string, unknown> = {
    agents: { default: "demo" },
    // The tests' people are its operators (admins); the tests of roles name their own members.
    access: { allow: ALLOWED_TEST_USERS, roles: { admin: ALLOWED_TEST_USERS } },
    // The usage line is off here so tests count only the answers; its own tests turn it on.
    rendering: { flush_debounce_ms: 50, min_edit_gap_ms: 100, show_usage: false },
    workspaces: { roots: [tmpdir(), process.cwd()], default: options.cwd ?? process.cwd() },
    // Tests that want the ops listener (/healthz, /metrics) ask for it on a free port.
    ops: { listen: "off" },
    // Stopping cancels running turns at once unless a test gives them a grace period.
    shutdown_grace: 0,
    // Schedule tests use seconds-field patterns to stay short; the default minimum is a minute.
    schedule_limits: { min_interval: "1s" },
    ...options.config,
  };
  // No spare agent process unless a test asks for one (test/core/spare.test.ts) or BATON_TEST_SPARE=1
  // runs them all with it: tests count their own processes, and one more demo agent per daemon is
  // only load on a shared machine.
  if (process.env.BATON_TEST_SPARE !== "1") config.agents = { spare_host: false, ...(config.agents as object) };
  return parseConfigText(stringify(config), "test-config.yaml", {});
}

export async function startTestBaton(options: TestBatonOptions): Promise<TestBaton> {
  const dataDir = options.dataDir ?? testTempDir("baton-test-");
  const loaded = testConfig(options);
  const log = options.log ?? (process.env.BATON_TEST_LOG ? createLogger({ level: "debug" }) : silentLogger());
  const env = { ...process.env, ...options.env, BATON_DATA_DIR: dataDir };
  const daemon = await startDaemon({ loaded, dataDir, log, extraAdapters: options.adapters, env, cwd: options.cwd, store: options.store?.(dataDir), now: options.now });
  return {
    dataDir,
    daemon,
    async stop({ cleanup = false } = {}) {
      await daemon.stop();
      if (cleanup) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls until `check` holds (a state the test cannot await directly). */
export async function waitUntil(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 25));
  }
}

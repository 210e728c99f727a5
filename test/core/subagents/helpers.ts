// Shared by the subagent tests: a Baton with the test platform and the demo agent (a real ACP
// process) as the thread's agent and as every subagent.
import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestPlatform } from "../../support/test-platform.js";
import { startTestBaton, type TestBaton } from "../../support/harness.js";

/** A turn of the host plus subagents, each a real process: generous on a loaded machine. */
export const MULTI_AGENT_MS = 90_000;

const started: TestBaton[] = [];
const dirs: string[] = [];

export function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
}

/**
 * Stops every Baton (the newest first), then removes the data dirs and temp folders. A test that
 * restarts on the same data dir has two Batons on it: removing it when the first (already stopped)
 * one is done would pull it from under the second, still running and writing there.
 */
export async function cleanup(): Promise<void> {
  const batons = started.splice(0).reverse();
  try {
    for (const b of batons) await b.stop();
  } finally {
    for (const d of new Set([...batons.map((b) => b.dataDir), ...dirs.splice(0)])) rmSync(d, { recursive: true, force: true });
  }
}

export async function bootSubagents(options: { config?: Record<string, unknown>; env?: NodeJS.ProcessEnv; cwd?: string; platform?: TestPlatform; dataDir?: string } = {}) {
  const platform = options.platform ?? new TestPlatform();
  const cwd = options.cwd ?? tempDir("baton-sub-ws-");
  const config = { workspaces: { roots: [cwd], default: cwd }, ...options.config };
  const baton = await startTestBaton({ adapters: [platform], config, env: options.env, cwd, dataDir: options.dataDir });
  started.push(baton);
  return { platform, baton, core: baton.daemon.core, cwd };
}

/** A git repository with one commit. */
export function gitRepo(): string {
  const dir = tempDir("baton-sub-repo-");
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: dir, stdio: "pipe" });
  git("init", "-q");
  git("commit", "-q", "--allow-empty", "-m", "first");
  return dir;
}

/** Demo agent processes this test process started (the daemon runs in-process), subagents included. */
export function demoAgentCount(): number {
  try {
    return execFileSync("pgrep", ["-P", String(process.pid), "-f", "agents/demo/main.js|demo-agent"], { encoding: "utf8" })
      .trim()
      .split("\n")
      .filter(Boolean).length;
  } catch {
    return 0;
  }
}

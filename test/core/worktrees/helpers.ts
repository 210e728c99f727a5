// Shared by the thread-worktree tests: a Baton with the test platform and the demo agent (a real
// ACP process), over a real git repository in a temp dir.
import { execFileSync } from "node:child_process";
import { realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { testTempDir } from "../../support/temp.js";
import { TestPlatform } from "../../support/test-platform.js";
import { startTestBaton, type TestBaton } from "../../support/harness.js";

/** A reply of the demo agent, a real process that may have to start: generous on a loaded machine. */
export const TURN_MS = 60_000;

const started: TestBaton[] = [];

/** A fresh real (symlink-free) folder, removed once the test file is done. */
export function tempDir(prefix: string): string {
  return realpathSync(testTempDir(prefix));
}

/** Stops every Baton started here, removing its data dir. */
export async function cleanup(): Promise<void> {
  for (const b of started.splice(0)) await b.stop({ cleanup: true });
}

/** git in `cwd`, with an identity; its trimmed output. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

/** A git repository on branch main with one commit holding notes.txt. */
export function gitRepo(): string {
  const dir = tempDir("baton-wt-repo-");
  git(dir, "init", "-q", "-b", "main");
  writeFileSync(join(dir, "notes.txt"), "first line\n");
  git(dir, "add", "notes.txt");
  git(dir, "commit", "-q", "-m", "first");
  return dir;
}

export async function bootBaton(options: { cwd: string; config?: Record<string, unknown>; dataDir?: string; platform?: TestPlatform }) {
  const platform = options.platform ?? new TestPlatform();
  const config = { workspaces: { roots: [options.cwd], default: options.cwd, isolation: "worktree" }, ...options.config };
  const baton = await startTestBaton({ adapters: [platform], config, cwd: options.cwd, dataDir: options.dataDir });
  started.push(baton);
  return { platform, baton, core: baton.daemon.core };
}

/** Stops a Baton started here, keeping its data dir (a restart follows). */
export async function stopKeeping(baton: TestBaton): Promise<void> {
  started.splice(started.indexOf(baton), 1);
  await baton.stop();
}

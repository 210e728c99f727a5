// Shared set-up of the machine tests: a real sshd on loopback standing in for the build box, a
// Baton whose config names it `build`, and the test platform to chat through.
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { TestPlatform } from "../../support/test-platform.js";
import { startTestBaton, type TestBaton } from "../../support/harness.js";
import { startTestSshd, type TestSshd } from "../../support/sshd.js";

export const BATON_BIN = join(process.cwd(), "bin", "baton.js");
/** How the "remote" machine runs Baton: this checkout, through its own node. */
export const REMOTE_BATON = [process.execPath, BATON_BIN];
/** A turn of a real agent process started over ssh: generous, the machine is shared. */
export const REMOTE_TURN_MS = 30_000;

export interface MachineWorld {
  sshd: TestSshd;
  baton: TestBaton;
  platform: TestPlatform;
  route: string;
  /** `~/code/api` on the build machine, as a path. */
  remoteWorkspace: string;
  /** Baton's data dir on the build machine (~/.baton there). */
  remoteDataDir: string;
}

const open: Array<{ sshd: TestSshd; baton?: TestBaton }> = [];

export async function startMachineWorld(options: { machine?: Record<string, unknown>; config?: Record<string, unknown> } = {}): Promise<MachineWorld> {
  const sshd = await startTestSshd();
  const entry: { sshd: TestSshd; baton?: TestBaton } = { sshd };
  open.push(entry);
  const remoteWorkspace = join(sshd.home, "code", "api");
  mkdirSync(remoteWorkspace, { recursive: true });
  const platform = new TestPlatform();
  const baton = await startTestBaton({
    adapters: [platform],
    config: { machines: { build: sshd.machine({ roots: ["~/code"], baton: REMOTE_BATON, ...options.machine }) }, ...options.config },
  });
  entry.baton = baton;
  return { sshd, baton, platform, route: platform.route("chat"), remoteWorkspace, remoteDataDir: join(sshd.home, ".baton") };
}

/** Stops every daemon and sshd the test started and removes their files (call in afterEach). */
export async function stopMachineWorlds(): Promise<void> {
  for (const { sshd, baton } of open.splice(0)) {
    await baton?.stop({ cleanup: true });
    await sshd.close();
  }
}

/** The demo agent's session files in a data dir. */
export function demoSessionFiles(dataDir: string): string[] {
  try {
    return readdirSync(join(dataDir, "demo-agent", "sessions"));
  } catch {
    return [];
  }
}

export async function waitUntil(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// Vitest global setup: every test run gets its own temp dir (TMPDIR, inherited by the workers and
// every process they start), and the run fails when a test leaves a `baton-*` folder in it. The
// dir is removed either way, so the machine's temp dir stays clean even after a failed run.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const runDir = mkdtempSync(join(tmpdir(), "baton-test-run-"));
  process.env.TMPDIR = runDir;
  return () => {
    const left = readdirSync(runDir).filter((name) => name.startsWith("baton-"));
    rmSync(runDir, { recursive: true, force: true });
    if (left.length > 0) {
      // Grouped by prefix (mkdtemp adds six random characters), which names the test that made them.
      const byPrefix = new Map<string, number>();
      for (const name of left) byPrefix.set(name.slice(0, -6), (byPrefix.get(name.slice(0, -6)) ?? 0) + 1);
      const list = [...byPrefix].map(([prefix, n]) => `${prefix}* ×${n}`).join(", ");
      // Vitest reports an error thrown here but still exits 0: the exit code makes the run fail.
      process.exitCode = 1;
      throw new Error(`Tests left ${left.length} baton-* folder(s) in the temp dir (each test must remove what it creates): ${list}`);
    }
  };
}

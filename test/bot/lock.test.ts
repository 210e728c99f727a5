// One daemon per data dir: the lock is the kernel's (it dies with the process that holds it), so a
// pid file left behind never blocks a start, whatever pid it names.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { acquireDataDirLock, LOCK_FILE } from "../../src/bot/lock.js";
import { exitOf } from "../support/process.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), "baton-lock-"));
  dirs.push(d);
  return d;
}

describe("the data dir lock", () => {
  it.each([
    ["pid 1 (Baton itself in a container)", "1\n"],
    ["this very process", `${process.pid}\n`],
    ["a live process that is not Baton", `${process.ppid}\n`],
    ["garbage", "not a pid"],
  ])("a stale lock file naming %s does not block the start", (_name, content) => {
    const dir = dataDir();
    writeFileSync(join(dir, LOCK_FILE), content);
    const release = acquireDataDirLock(dir);
    release();
  });

  it("refuses while another process holds it, and is free the moment that process is killed", async () => {
    const dir = dataDir();
    const holder = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { acquireDataDirLock } from ${JSON.stringify(join(process.cwd(), "dist/bot/lock.js"))}; acquireDataDirLock(${JSON.stringify(dir)}); console.log("locked"); setInterval(() => {}, 1000);`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout.on("data", (d: Buffer) => d.toString().includes("locked") && resolve());
        holder.once("exit", (code) => reject(new Error(`lock holder exited (${code})`)));
      });
      expect(() => acquireDataDirLock(dir)).toThrow(new RegExp(`Another Baton \\(pid ${holder.pid}\\) is already running`));
    } finally {
      holder.kill("SIGKILL");
      await exitOf(holder);
    }
    const release = acquireDataDirLock(dir);
    release();
  });

  it("refuses a second lock in the same process, and can be taken again once released", () => {
    const dir = dataDir();
    const release = acquireDataDirLock(dir);
    expect(() => acquireDataDirLock(dir)).toThrow(/Another Baton/);
    release();
    acquireDataDirLock(dir)();
  });
});

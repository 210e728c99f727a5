// `baton …` run as a user runs it (the shipped entry point, bin/baton.js → dist/bundle) on a
// config and data dir in a temporary folder: `start` as a child process whose output is kept,
// other commands to completion. stopAll() stops the daemons as a service manager would (SIGTERM,
// SIGKILL only if one does not stop), so what they started is gone before the folder is removed.
import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { waitFor } from "../platforms/telegram/helpers.js";
import { stopGracefully } from "./process.js";

const BATON = join(process.cwd(), "bin/baton.js");
const READY_MS = 30_000;
const STOP_MS = 10_000;

export interface RunningBaton {
  child: ChildProcess;
  out(): string;
  err(): string;
}

export class BatonProcesses {
  private readonly children: ChildProcess[] = [];

  constructor(readonly dir: string) {}

  get configPath(): string {
    return join(this.dir, "baton.yaml");
  }

  writeConfig(lines: string[]): void {
    writeFileSync(this.configPath, `${lines.join("\n")}\n`);
  }

  args(...args: string[]): string[] {
    return [BATON, ...args, "--config", this.configPath, "--data-dir", join(this.dir, "data")];
  }

  /** `baton start`, not waited for. */
  spawnStart(): RunningBaton {
    const child = spawn(process.execPath, this.args("start"), { stdio: ["ignore", "pipe", "pipe"] });
    this.children.push(child);
    let out = "";
    let err = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
    return { child, out: () => out, err: () => err };
  }

  /** `baton start`, once it printed its ready line. */
  async start(): Promise<RunningBaton> {
    const running = this.spawnStart();
    await waitFor(
      () => {
        if (running.out().includes("Baton ready")) return true;
        if (running.child.exitCode !== null) throw new Error(`baton start exited:\n${running.out()}\n${running.err()}`);
        return undefined;
      },
      "the ready line",
      READY_MS,
    );
    return running;
  }

  /** Any other command, to completion. */
  run(...args: string[]): SpawnSyncReturns<string> {
    return spawnSync(process.execPath, this.args(...args), { encoding: "utf8" });
  }

  async stopAll(): Promise<void> {
    for (const child of this.children.splice(0)) await stopGracefully(child, STOP_MS);
  }
}

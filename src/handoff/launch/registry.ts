// Which `baton launch` terminals are running: one small file per launch under
// <dataDir>/launches/. The daemon reads it to warn when a session picked up in chat is still open
// in a terminal (both writing at once forks the conversation). A file whose process is gone is
// stale and removed on the next read, so a killed terminal never leaves a false warning behind.
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isProcessAlive } from "../../kernel/process.js";

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

export interface LaunchRecord {
  launchId: string;
  /** The process that runs the agent CLI in the terminal. */
  pid: number;
  agent: string;
  cwd: string;
  /** ISO time the launch started: sessions active since then belong to it. */
  startedAt: string;
}

export function newLaunchId(): string {
  return `ln_${randomBytes(6).toString("hex")}`;
}

export class LaunchRegistry {
  private readonly dir: string;

  constructor(dataDir: string) {
    this.dir = join(dataDir, "launches");
  }

  record(launch: LaunchRecord): void {
    mkdirSync(this.dir, { recursive: true, mode: DIR_MODE });
    writeFileSync(this.file(launch.launchId), `${JSON.stringify(launch)}\n`, { mode: FILE_MODE });
  }

  remove(launchId: string): void {
    rmSync(this.file(launchId), { force: true });
  }

  get(launchId: string): LaunchRecord | undefined {
    return this.running().find((l) => l.launchId === launchId);
  }

  /** Launches whose process is still alive; stale files are removed. */
  running(): LaunchRecord[] {
    let names: string[];
    try {
      names = readdirSync(this.dir).filter((n) => n.endsWith(".json"));
    } catch {
      return [];
    }
    const out: LaunchRecord[] = [];
    for (const name of names) {
      let launch: LaunchRecord;
      try {
        launch = JSON.parse(readFileSync(join(this.dir, name), "utf8")) as LaunchRecord;
      } catch {
        continue; // being written right now, or torn: not ours to judge
      }
      if (isProcessAlive(launch.pid)) out.push(launch);
      else rmSync(join(this.dir, name), { force: true });
    }
    return out;
  }

  private file(launchId: string): string {
    if (!/^ln_[0-9a-f]+$/.test(launchId)) throw new Error(`bad launch id: ${launchId}`);
    return join(this.dir, `${launchId}.json`);
  }
}

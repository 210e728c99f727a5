// `baton start` instances (the shipped CLI) sharing one PostgreSQL, for the takeover tests: each has
// its own config file and data dir under one test folder; the config adds the store (short lease
// timings), the instance id, the demo agent and an ops listener on a free port.
import { spawn, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { stopGracefully } from "./process.js";

const BATON = join(process.cwd(), "bin/baton.js");
/** A cold start on a loaded 2-core machine. */
const READY_MS = 30_000;

export interface ClusterInstance {
  id: string;
  child: ChildProcess;
  dataDir: string;
  /** What it printed so far on stdout / stderr. */
  out(): string;
  err(): string;
  /** Resolves once it printed "Baton ready" `times` times in all (it led that often). */
  leading(times?: number): Promise<void>;
  /** Resolves once it stands by. */
  standingBy(): Promise<void>;
}

export class ClusterInstances {
  private readonly children: ChildProcess[] = [];

  constructor(
    private readonly dir: string,
    private readonly url: string,
  ) {}

  /** Starts `baton start` as instance `id` with `config` (platforms, access, …) over the shared base. */
  start(id: string, config: Record<string, unknown>): ClusterInstance {
    const file = join(this.dir, `${id}.yaml`);
    writeFileSync(
      file,
      stringify({
        agents: { default: "demo", spare_host: false },
        ops: { listen: "127.0.0.1:0" },
        rendering: { show_usage: false },
        workspaces: { roots: [this.dir], default: this.dir },
        ...config,
        instance: { id },
        store: { url: this.url, lease_ms: 2_000, renew_ms: 500 },
      }),
    );
    const dataDir = join(this.dir, `data-${id}`);
    const child = spawn(process.execPath, [BATON, "start", "--config", file, "--data-dir", dataDir], { stdio: ["ignore", "pipe", "pipe"] });
    this.children.push(child);
    let out = "";
    let err = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
    const until = (check: () => boolean, what: string) => waitUntil(check, `${id} ${what}`, () => `${out}\n${err}`);
    return {
      id,
      child,
      dataDir,
      out: () => out,
      err: () => err,
      leading: (times = 1) => until(() => out.split("Baton ready").length > times, "leading"),
      standingBy: () => until(() => out.includes("standing by"), "standing by"),
    };
  }

  /** Stops every instance still running (SIGTERM, then SIGKILL). */
  async stopAll(): Promise<void> {
    for (const child of this.children.splice(0)) await stopGracefully(child, 10_000);
  }
}

async function waitUntil(check: () => boolean, what: string, output: () => string): Promise<void> {
  const deadline = Date.now() + READY_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

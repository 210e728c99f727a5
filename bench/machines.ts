// Start to first token, on this machine and on another over SSH (a real sshd on loopback): the
// clock starts when the platform hands the first prompt of a fresh thread to the core (no agent
// process running) and stops when the first text of the agent's reply is sent to the platform.
// Over SSH "warm" reuses an open connection (ControlMaster); "cold" pays for the handshake too.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import type { SshMachine } from "../src/agents/machines/ssh-machine.js";
import { parseConfigText } from "../src/config/load.js";
import { startDaemon } from "../src/bot/daemon.js";
import { silentLogger } from "../src/kernel/log.js";
import type { MessageRef, OutboundMessage } from "../src/platforms/contract.js";
import { TestPlatform } from "../test/support/test-platform.js";
import { sshdAvailable, startTestSshd } from "../test/support/sshd.js";
import { median, type BenchResult } from "./types.js";
import { CLI } from "./lib/baton.js";

const SAMPLES = 7;

/** Notes when the first text of a turn goes out. */
class StopwatchPlatform extends TestPlatform {
  private firstText?: (at: number) => void;
  nextText(): Promise<number> {
    return new Promise((resolve) => (this.firstText = resolve));
  }
  override async send(route: string, message: OutboundMessage): Promise<MessageRef> {
    if (message.kind === "text" && this.firstText) {
      this.firstText(performance.now());
      this.firstText = undefined;
    }
    return super.send(route, message);
  }
}

export async function benchMachines(): Promise<BenchResult[]> {
  if (!sshdAvailable()) return [{ name: "start to first token over ssh: skipped (no /usr/sbin/sshd)", value: 0, unit: "" }];
  const sshd = await startTestSshd();
  const remoteWorkspace = join(sshd.home, "code");
  mkdirSync(remoteWorkspace);
  const dataDir = mkdtempSync(join(tmpdir(), "baton-bench-machines-"));
  const platform = new StopwatchPlatform("bench", { typingIntervalMs: undefined });
  const config = {
    agents: { default: "demo" },
    // An admin: starting a thread in another workspace (`/new <workspace>`) is theirs to do.
    access: { allow: ["test:alice"], roles: { admin: ["test:alice"] } },
    rendering: { flush_debounce_ms: 0, min_edit_gap_ms: 0 },
    workspaces: { roots: [tmpdir()], default: tmpdir() },
    machines: { build: sshd.machine({ roots: ["~/code"], baton: [process.execPath, CLI], handover: "off" }) },
  };
  const daemon = await startDaemon({
    loaded: parseConfigText(stringify(config), "bench.yaml", {}),
    dataDir,
    log: silentLogger(),
    extraAdapters: [platform],
    env: { ...process.env, BATON_DATA_DIR: dataDir },
  });
  const build = daemon.core.machines.get("build") as SshMachine;
  const route = platform.route("chat");
  const firstToken = async (workspace: string, cold: boolean): Promise<number> => {
    await platform.say(route, `/new ${workspace}`); // a fresh thread: no agent process yet
    if (cold) await build.connection.exitMaster();
    const thread = daemon.core.registry.threadForRoute(route)!;
    const stopped = platform.nextText();
    const started = performance.now();
    await platform.say(route, "hello");
    const elapsed = (await stopped) - started;
    await daemon.core.supervisor.drained(thread.id);
    return elapsed;
  };
  const remote = `build:${remoteWorkspace}`;
  const modes: Array<[string, boolean]> = [
    [tmpdir(), false],
    [remote, false],
    [remote, true],
  ];
  try {
    for (const [workspace, cold] of modes) await firstToken(workspace, cold); // warm-up: caches, the first connection
    // Interleaved, so a machine whose load changes during the run weighs on every series alike.
    const samples: number[][] = modes.map(() => []);
    for (let i = 0; i < SAMPLES; i++) {
      for (const [m, [workspace, cold]] of modes.entries()) samples[m].push(await firstToken(workspace, cold));
    }
    const [local, warm, cold] = samples.map(median);
    // What ssh itself costs, without the agent's start: a session on the open connection, a new connection.
    const session: number[] = [];
    const connect: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      let t = performance.now();
      await build.run(":");
      session.push(performance.now() - t);
      await build.connection.exitMaster();
      t = performance.now();
      await build.connection.ensure();
      connect.push(performance.now() - t);
    }
    return [
      { name: `start → first token, demo agent on this machine (median of ${SAMPLES})`, value: local, unit: "ms" },
      { name: `start → first token, demo agent over ssh, connection open (median of ${SAMPLES})`, value: warm, unit: "ms" },
      { name: `start → first token, demo agent over ssh, new connection (median of ${SAMPLES})`, value: cold, unit: "ms" },
      { name: `ssh: a command on the open connection (median of ${SAMPLES})`, value: median(session), unit: "ms" },
      { name: `ssh: a new connection, handshake and login (median of ${SAMPLES})`, value: median(connect), unit: "ms" },
    ];
  } finally {
    await daemon.stop();
    await sshd.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

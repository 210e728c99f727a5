// An agent's session store on another machine, for /session, /pickup and briefs. With Baton
// installed there, its own store readers run there (`baton handoff list --json`, `baton handoff
// export`), so only the answer crosses the network. Without it, the store's files are copied over
// the same connection into a private mirror here and read with the same readers.
import { spawn } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { createReadStream } from "node:fs";
import { BatonError } from "../../kernel/errors.js";
import type { StoredSession, StoreOptions } from "../stores/index.js";
import { loadStores } from "../load-stores.js";
import { BATON_SCRIPT, PUT_FILE_SCRIPT, TAR_DIR_SCRIPT, remoteCommand, envLine } from "./remote-sh.js";
import type { SshMachine } from "./ssh-machine.js";
import { MachineError, type BriefRenderer, type PlacedBrief } from "./types.js";

const PRIVATE_DIR_MODE = 0o700;
const STORE_TIMEOUT_MS = 120_000;

export class RemoteStores {
  constructor(
    private readonly machine: SshMachine,
    /** A private directory here for this machine (mirrors, briefs on their way there). */
    private readonly localDir: string,
  ) {}

  async list(runtime: string, dir?: string): Promise<StoredSession[]> {
    const info = await this.machine.info();
    if (info.baton) {
      const args = ["handoff", "list", "--json", "--harness", runtime, "--limit", "0", ...(dir ? ["--dir", dir] : [])];
      const parsed = await this.baton<{ sessions: StoredSession[] }>(args, "list its sessions");
      return parsed.sessions;
    }
    const { listSessions } = await loadStores();
    return (await listSessions({ ...(await this.mirror(runtime)), dir })).sessions;
  }

  async writeBrief(runtime: string, sessionId: string, render: BriefRenderer): Promise<PlacedBrief> {
    const info = await this.machine.info();
    if (info.baton) {
      const parsed = await this.baton<{ path: string; brief?: string }>(["handoff", "export", sessionId, "--harness", runtime, "--json"], "write a brief");
      return { path: parsed.path, ...(typeof parsed.brief === "string" ? { text: parsed.brief } : {}) };
    }
    const rendered = await render(await this.mirror(runtime), join(this.localDir, "briefs"));
    return { path: await this.placeBrief(rendered.path), text: rendered.text };
  }

  /** Moves a brief written here into Baton's handoffs directory there. */
  async placeBrief(localPath: string): Promise<string> {
    const info = await this.machine.info();
    try {
      return await this.putFile(join(info.dataDir, "handoffs"), localPath);
    } finally {
      rmSync(localPath, { force: true });
    }
  }

  /** Runs Baton's CLI there with its data dir and parses its JSON answer. */
  private async baton<T>(args: string[], what: string): Promise<T> {
    const info = await this.machine.info();
    const words = this.machine.batonWords!;
    const result = await this.machine.run(BATON_SCRIPT, [...words, "--data-dir", info.dataDir, ...args], { timeoutMs: STORE_TIMEOUT_MS });
    // Baton there answered: its refusal (no such session) is about the store, not the connection.
    if (result.code !== 0) {
      const why =
        result.stderr
          .trim()
          .split("\n")
          .at(-1)
          ?.replace(/^error: /, "") || `exit ${result.code}`;
      throw new BatonError(`Baton on ${this.machine.name} could not ${what}: ${why}`);
    }
    try {
      return JSON.parse(result.stdout) as T;
    } catch {
      throw new MachineError(`Baton on ${this.machine.name} answered something other than JSON when asked to ${what}; is it the same version as here (${info.baton})?`);
    }
  }

  /** Copies a local file into a directory there; returns its path there. */
  async putFile(remoteDir: string, localPath: string): Promise<string> {
    const result = await this.machine.run(PUT_FILE_SCRIPT, [remoteDir, basename(localPath)], { input: createReadStream(localPath) });
    const path = result.stdout.trim();
    if (result.code !== 0 || !path) throw new MachineError(`Could not copy ${basename(localPath)} to ${this.machine.name}: ${result.stderr.trim() || `exit ${result.code}`}`);
    return path;
  }

  /** A fresh private copy of one runtime's store from there, and the options that read it here. */
  private async mirror(runtime: string): Promise<StoreOptions> {
    const reader = (await loadStores()).getReader(runtime);
    if (!reader) throw new MachineError(`Baton has no reader for ${runtime} sessions.`);
    const info = await this.machine.info();
    const env = { ...info.env, BATON_DATA_DIR: info.dataDir };
    const remoteDir = reader.defaultDir(env, info.home);
    const local = join(this.localDir, "stores", reader.runtime);
    rmSync(local, { recursive: true, force: true });
    mkdirSync(local, { recursive: true, mode: PRIVATE_DIR_MODE });
    await this.copyTree(remoteDir, local);
    return { runtime, storeDirs: { [reader.runtime]: local }, env, home: info.home };
  }

  /** `tar` there piped into `tar` here, over the shared connection. */
  private async copyTree(remoteDir: string, localDir: string): Promise<void> {
    await this.machine.info();
    const remote = this.machine.connection.spawnSession(remoteCommand(TAR_DIR_SCRIPT, [remoteDir]));
    const untar = spawn("tar", ["-xf", "-", "-C", localDir], { stdio: ["pipe", "ignore", "pipe"] });
    remote.stdin!.end(envLine(this.machine.settings.env));
    remote.stdout!.pipe(untar.stdin);
    let remoteErr = "";
    let localErr = "";
    remote.stderr!.setEncoding("utf8").on("data", (d: string) => (remoteErr += d));
    untar.stderr.setEncoding("utf8").on("data", (d: string) => (localErr += d));
    const exit = (p: ReturnType<typeof spawn>) =>
      new Promise<number | null>((resolve) => {
        p.once("close", resolve);
        p.once("error", () => resolve(-1));
      });
    const [remoteCode, localCode] = await Promise.all([exit(remote), exit(untar)]);
    if (remoteCode !== 0) throw new MachineError(`Could not copy the session store ${remoteDir} from ${this.machine.name}: ${remoteErr.trim().split("\n").at(-1) || `exit ${remoteCode}`}`);
    if (localCode !== 0) throw new MachineError(`Could not unpack the session store copied from ${this.machine.name}: ${localErr.trim().split("\n").at(-1) || `exit ${localCode}`}`);
  }
}

// One OpenSSH connection to a machine, shared by everything Baton runs there: a ControlMaster in a
// private control directory, so an agent start or a store read costs a session on an open
// connection instead of a new handshake. Always BatchMode (nobody to type a password) and strict
// host-key checking (an unknown or changed key is refused, never learnt).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { expandHome } from "../../kernel/paths.js";
import { connectError, lastLine, lostConnectionText, SSH_FAILED, type SshTarget } from "./ssh-errors.js";
import { MachineError } from "./types.js";

const CONTROL_DIR_MODE = 0o700;
/** ssh's own keepalive: a dead network is noticed within about 45 s even when nothing is sent. */
const SERVER_ALIVE_INTERVAL_S = 15;
const SERVER_ALIVE_COUNT = 3;
/** Beyond the connect timeout, what authentication may take before Baton gives up. */
const AUTH_MARGIN_MS = 10_000;
const DEFAULT_RUN_TIMEOUT_MS = 60_000;
/** A master seen up this recently is not asked again: a session that finds it gone falls back or retries. */
const TRUST_MASTER_MS = 2_000;

export interface SshConnectionOptions extends SshTarget {
  controlDir: string;
  connectTimeoutMs: number;
  persistMs: number;
  /** Environment of the local ssh process (its agent socket, HOME for ~/.ssh/config). */
  env: NodeJS.ProcessEnv;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export class SshConnection {
  /** Bumped whenever a new master connection is made: what was learnt over the old one is stale. */
  generation = 0;
  private connecting?: Promise<void>;
  /** A master left by an earlier Baton process is replaced once, so this process starts from a known state. */
  private replacedStale = false;
  /** ssh processes opening a master right now (killed when Baton stops mid-connect). */
  private readonly opening = new Set<ChildProcess>();
  private closed = false;
  /** Until then the master is taken as up without asking (a start makes several calls in a row). */
  private trustedUntil = 0;

  constructor(readonly options: SshConnectionOptions) {}

  /** Options every ssh invocation of this machine shares. */
  commonArgs(): string[] {
    const o = this.options;
    const args = [
      "-o",
      "BatchMode=yes",
      "-o",
      "StrictHostKeyChecking=yes",
      "-o",
      `ControlPath=${join(o.controlDir, "%C")}`,
      "-o",
      `ConnectTimeout=${Math.max(1, Math.ceil(o.connectTimeoutMs / 1000))}`,
      "-o",
      `ServerAliveInterval=${SERVER_ALIVE_INTERVAL_S}`,
      "-o",
      `ServerAliveCountMax=${SERVER_ALIVE_COUNT}`,
    ];
    if (o.port) args.push("-p", String(o.port));
    if (o.identityFile) args.push("-i", expandHome(o.identityFile), "-o", "IdentitiesOnly=yes");
    if (o.knownHosts) args.push("-o", `UserKnownHostsFile=${expandHome(o.knownHosts)}`);
    return args;
  }

  /** `ssh -T … <dest> -- <command>` over the shared connection (never opening one of its own). */
  sessionArgs(remoteCommand: string): string[] {
    return [...this.commonArgs(), "-T", "-o", "ControlMaster=no", this.options.destination, "--", remoteCommand];
  }

  /** Makes sure a master connection is up; throws a MachineError saying why it cannot be. */
  async ensure(): Promise<void> {
    if (this.closed) throw new MachineError(`Baton is stopping; ${this.options.name} is not connected again.`);
    this.connecting ??= this.connect().finally(() => (this.connecting = undefined));
    await this.connecting;
  }

  private async connect(): Promise<void> {
    if (Date.now() < this.trustedUntil) return;
    if (!this.replacedStale) {
      this.replacedStale = true;
      await this.exitMaster();
    } else if (await this.masterAlive()) {
      this.trustedUntil = Date.now() + TRUST_MASTER_MS;
      return;
    }
    mkdirSync(this.options.controlDir, { recursive: true, mode: CONTROL_DIR_MODE });
    const persist = `${Math.max(1, Math.ceil(this.options.persistMs / 1000))}s`;
    // -f: ssh returns once authenticated and keeps the master in the background until it has been
    // idle for ControlPersist (or Baton ends it).
    const args = [...this.commonArgs(), "-o", "ControlMaster=yes", "-o", `ControlPersist=${persist}`, "-N", "-f", this.options.destination];
    const result = await this.ssh(args, { timeoutMs: this.options.connectTimeoutMs + AUTH_MARGIN_MS, track: true });
    if (this.closed) throw new MachineError(`Baton is stopping; ${this.options.name} is not connected again.`);
    if (result.code !== 0) throw connectError(this.options, result.stderr, result.code);
    this.generation++;
    this.trustedUntil = Date.now() + TRUST_MASTER_MS;
  }

  /** Ends the connection for good: a connect under way is cut short, the master is told to exit. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const opening = [...this.opening];
    for (const child of opening) child.kill("SIGKILL");
    await this.connecting?.catch(() => undefined);
    if (this.replacedStale) await this.exitMaster();
  }

  async masterAlive(): Promise<boolean> {
    const alive = (await this.control("check")).code === 0;
    if (!alive) this.trustedUntil = 0;
    return alive;
  }

  /** Ends the master and every session on it. */
  async exitMaster(): Promise<void> {
    this.trustedUntil = 0;
    await this.control("exit");
  }

  private control(command: "check" | "exit"): Promise<RunResult> {
    return this.ssh([...this.commonArgs(), "-O", command, this.options.destination], { timeoutMs: 10_000 });
  }

  /** Runs a remote command over the connection; ssh's own failure (exit 255) becomes a MachineError. */
  async run(remoteCommand: string, options: { input?: string | Readable; inputPrefix?: string; timeoutMs?: number } = {}): Promise<RunResult> {
    await this.ensure();
    const run = () => this.ssh(this.sessionArgs(remoteCommand), { ...options, timeoutMs: options.timeoutMs ?? DEFAULT_RUN_TIMEOUT_MS });
    let result = await run();
    // The connection died just before this run: connect once more, so the chat hears how things
    // stand now ("cannot reach", or it works again) rather than about a connection already gone.
    const replayable = typeof options.input !== "object";
    if (result.code === SSH_FAILED && replayable && !(await this.masterAlive())) {
      await this.ensure();
      result = await run();
    }
    if (result.code === SSH_FAILED) throw new MachineError(lostConnectionText(this.options, result.stderr), { detail: result.stderr });
    return result;
  }

  /** A session whose stdout is streamed to the caller (archives); resolves with the exit status. */
  spawnSession(remoteCommand: string): ChildProcess {
    return spawn("ssh", this.sessionArgs(remoteCommand), { env: this.options.env, stdio: ["pipe", "pipe", "pipe"] });
  }

  /** Asks the master to forward a port on the machine's loopback to `host:port` here; returns the port there. */
  async forwardToHere(host: string, port: number): Promise<number> {
    await this.ensure();
    const result = await this.ssh([...this.commonArgs(), "-O", "forward", "-R", `127.0.0.1:0:${host}:${port}`, this.options.destination], { timeoutMs: 15_000 });
    const remotePort = Number.parseInt(result.stdout.trim(), 10);
    if (result.code !== 0 || !Number.isInteger(remotePort) || remotePort <= 0) {
      throw new MachineError(
        `${this.options.name} did not accept a reverse tunnel for terminal handover (${lastLine(result.stderr) || "no port given"}). Check AllowTcpForwarding in its sshd_config.`,
      );
    }
    return remotePort;
  }

  /** Runs the local ssh binary; never throws for a non-zero exit. */
  private ssh(args: string[], options: { input?: string | Readable; inputPrefix?: string; timeoutMs: number; track?: boolean }): Promise<RunResult> {
    return new Promise((resolve, reject) => {
      const child = spawn("ssh", args, { env: this.options.env, stdio: ["pipe", "pipe", "pipe"] });
      if (options.track) {
        this.opening.add(child);
        child.once("close", () => this.opening.delete(child));
      }
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
      child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      const timer = setTimeout(() => {
        stderr += `\nssh did not finish within ${Math.round(options.timeoutMs / 1000)} s: Connection timed out`;
        child.kill("SIGKILL");
      }, options.timeoutMs);
      child.once("error", (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        if (error.code === "ENOENT")
          reject(new MachineError("The OpenSSH client (`ssh`) is not installed on the Baton machine; install it (Debian/Ubuntu: `apt install openssh-client`).", { cause: error }));
        else reject(error);
      });
      child.once("close", (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
      child.stdin.on("error", () => undefined); // a session that ends early closes its stdin under us
      if (options.inputPrefix) child.stdin.write(options.inputPrefix);
      if (typeof options.input === "string" || options.input === undefined) child.stdin.end(options.input ?? "");
      else options.input.pipe(child.stdin);
    });
  }
}

// Terminal → chat from another machine: `baton launch` / `baton mcp` there find this daemon through
// two files in Baton's data dir there (`mcp-remote.json`, `mcp-remote-token`, both 0600). The URL
// is an SSH reverse tunnel to the daemon's loopback MCP endpoint (`-R` on the shared connection),
// or a token-protected listener the user opened (`handover.remote_listen`). Each machine has its
// own token, so the daemon knows which machine a handover comes from, and a machine's token acts
// for that machine's directories only.
import { redactSecrets } from "../../kernel/secrets.js";
import type { ChildProcess } from "node:child_process";
import type { Logger } from "../../kernel/log.js";
import { envLine, remoteCommand } from "./remote-sh.js";
import type { SshMachine } from "./ssh-machine.js";
import { MachineError } from "./types.js";

export const REMOTE_ENDPOINT_FILE = "mcp-remote.json";
export const REMOTE_TOKEN_FILE = "mcp-remote-token";

/** What a remote `baton mcp` reads from REMOTE_ENDPOINT_FILE. */
export interface RemoteEndpoint {
  url: string;
  /** The machine's name in the daemon's config. */
  machine: string;
  via: "tunnel" | "listener";
  /** Which daemon wrote it (so a daemon removes only its own). */
  owner: string;
}

export interface HandoverEndpoint {
  /** The daemon's MCP URL on this machine's loopback: where tunnels lead. */
  localUrl: string;
  tokenFor(machine: string): string;
  owner: string;
}

const RETRY_FIRST_MS = 5_000;
const RETRY_MAX_MS = 300_000;
const CLEANUP_TIMEOUT_MS = 5_000;

const PUBLISH_SCRIPT = [
  'd=$1; umask 077 && mkdir -p "$d" || exit 1',
  `IFS= read -r token && IFS= read -r endpoint || exit 1`,
  `printf "%s\\n" "$token" > "$d/${REMOTE_TOKEN_FILE}.tmp" && mv "$d/${REMOTE_TOKEN_FILE}.tmp" "$d/${REMOTE_TOKEN_FILE}"`,
  `printf "%s\\n" "$endpoint" > "$d/${REMOTE_ENDPOINT_FILE}.tmp" && mv "$d/${REMOTE_ENDPOINT_FILE}.tmp" "$d/${REMOTE_ENDPOINT_FILE}"`,
].join("\n");

const UNPUBLISH_SCRIPT = `d=$1; grep -qF "\\"owner\\":\\"$2\\"" "$d/${REMOTE_ENDPOINT_FILE}" 2>/dev/null && rm -f "$d/${REMOTE_ENDPOINT_FILE}" "$d/${REMOTE_TOKEN_FILE}"; exit 0`;

export class RemoteHandover {
  private publishedFor = -1;
  private publishedDir?: string;
  private keeper?: ChildProcess;
  private retry?: NodeJS.Timeout;
  private retryMs = RETRY_FIRST_MS;
  private up = false;
  private closing = false;
  private attempting?: Promise<void>;
  /** The URL agents there reach the daemon's MCP endpoint at, once published (tunnel or listener). */
  url?: string;

  constructor(
    private readonly machine: SshMachine,
    private readonly endpoint: HandoverEndpoint,
    private readonly log: Logger,
  ) {}

  /** Publishes the endpoint now (in the background) and again after every new connection. */
  start(): void {
    void this.attempt();
  }

  /** Resolves once a publish attempt in flight (or a new one) has ended; `url` says whether it worked. */
  async ready(): Promise<void> {
    await (this.attempting ?? this.attempt());
  }

  /** Called by the machine when it made a new connection: the old tunnel is gone with the old one. */
  connected(): void {
    if (!this.closing) void this.attempt();
  }

  private attempt(): Promise<void> {
    this.attempting ??= this.publish()
      .then(() => {
        if (!this.up) this.log.info({ machine: this.machine.name }, `terminal handover from ${this.machine.name} is ready`);
        this.up = true;
        this.retryMs = RETRY_FIRST_MS;
      })
      .catch((error: unknown) => {
        if (this.closing) return;
        // Baton's own words as they are; a library's message is outside text.
        const text = error instanceof MachineError ? error.userMessage : redactSecrets(String(error));
        if (this.up || this.retryMs === RETRY_FIRST_MS) this.log.warn({ machine: this.machine.name, retryInMs: this.retryMs }, `terminal handover from ${this.machine.name} is not available: ${text}`);
        this.up = false;
        this.scheduleRetry();
      })
      .finally(() => (this.attempting = undefined));
    return this.attempting;
  }

  private scheduleRetry(): void {
    clearTimeout(this.retry);
    this.retry = setTimeout(() => void this.attempt(), this.retryMs);
    this.retry.unref();
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }

  private async publish(): Promise<void> {
    const info = await this.machine.info();
    const generation = this.machine.connection.generation;
    if (this.publishedFor === generation) return;
    const settings = this.machine.settings;
    let url: string;
    if (settings.handover === "listener") url = settings.handover_url!;
    else {
      const local = new URL(this.endpoint.localUrl);
      const port = await this.machine.connection.forwardToHere(local.hostname, Number(local.port));
      url = `http://127.0.0.1:${port}${local.pathname}`;
    }
    const record: RemoteEndpoint = { url, machine: this.machine.name, via: settings.handover === "listener" ? "listener" : "tunnel", owner: this.endpoint.owner };
    const result = await this.machine.run(PUBLISH_SCRIPT, [info.dataDir], { input: `${this.endpoint.tokenFor(this.machine.name)}\n${JSON.stringify(record)}\n` });
    if (result.code !== 0) throw new MachineError(`Could not write the handover endpoint into ${info.dataDir} on ${this.machine.name}: ${result.stderr.trim() || `exit ${result.code}`}`);
    this.publishedFor = generation;
    this.publishedDir = info.dataDir;
    this.url = url;
    if (settings.handover === "tunnel" && !this.closing) this.keep();
  }

  /**
   * A session that holds the connection (and so the tunnel) open while this daemon runs. It ends
   * when the connection drops (then Baton reconnects, with backoff) or when this process goes away
   * (its stdin closes), after which the idle connection expires on its own.
   */
  private keep(): void {
    this.keeper?.kill();
    const keeper = this.machine.connection.spawnSession(remoteCommand("exec cat >/dev/null"));
    this.keeper = keeper;
    keeper.stdin!.on("error", () => undefined);
    keeper.stdin!.write(envLine({}));
    keeper.stdout!.resume();
    keeper.stderr!.resume();
    keeper.once("close", (code) => {
      if (this.keeper !== keeper || this.closing) return;
      this.keeper = undefined;
      this.publishedFor = -1;
      this.up = false;
      this.url = undefined;
      this.log.warn({ machine: this.machine.name, code }, `lost the connection to ${this.machine.name}; reconnecting for terminal handover`);
      this.scheduleRetry();
    });
  }

  /** Stops the keeper and removes the endpoint there; never waits for a machine that does not answer. */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.retry);
    const keeper = this.keeper;
    this.keeper = undefined;
    keeper?.kill();
    // Only over a connection that is still up: a machine that is gone is not waited for at shutdown.
    if (this.publishedDir && this.publishedFor === this.machine.connection.generation && (await this.machine.connection.masterAlive())) {
      await this.machine.run(UNPUBLISH_SCRIPT, [this.publishedDir, this.endpoint.owner], { timeoutMs: CLEANUP_TIMEOUT_MS }).catch(() => undefined);
    }
  }
}

// A machine reached with OpenSSH: agents start as `ssh -T <machine> -- <acp command>` with ACP
// over the session's stdio; workspace checks, files from the chat and session stores go over the
// same shared connection.
import { createReadStream, mkdirSync } from "node:fs";
import { basename } from "node:path";
import type { Readable } from "node:stream";
import { AgentError } from "../../kernel/errors.js";
import type { StoredSession } from "../stores/index.js";
import { DIRECTORY_SCRIPT, envLine, EXIT, LAUNCH_SCRIPT, probeScript, remoteCommand, STAGE_FILE_SCRIPT } from "./remote-sh.js";
import { RemoteStores } from "./remote-stores.js";
import { copyRemoteWorkspaceFile } from "./remote-files.js";
import { SshConnection, type RunResult } from "./ssh-connection.js";
import { lostConnectionText, loginCommand, SSH_FAILED } from "./ssh-errors.js";
import { MachineError, type AgentLaunchRequest, type BriefRenderer, type ExecResult, type Machine, type MachineLaunch, type MachineSettings, type PlacedBrief } from "./types.js";

/** What Baton learns about the machine once per connection. */
export interface RemoteInfo {
  home: string;
  /** Baton's data dir there (mcp endpoint for terminal handover, the demo agent's store). */
  dataDir: string;
  roots: string[];
  /** Configured roots that do not exist there, as written. */
  missingRoots: string[];
  /** `baton --version` there, when Baton is installed. */
  baton?: string;
  env: Record<string, string>;
}

const MAX_STAGED_NAME = 120;
const PRIVATE_DIR_MODE = 0o700;

export class SshMachine implements Machine {
  readonly label: string;
  readonly login: string;
  readonly connection: SshConnection;
  private readonly stores: RemoteStores;
  private probed?: { generation: number; info: Promise<RemoteInfo> };

  /** Told when a new connection was made (terminal handover publishes its tunnel again). */
  onConnected?: () => void;
  /** A private directory on the Baton machine for this machine (store mirrors, briefs in transit). */
  readonly localDir: string;

  constructor(
    readonly name: string,
    readonly settings: MachineSettings,
    deps: { controlDir: string; localDir: string; env: NodeJS.ProcessEnv },
  ) {
    const target = { name, destination: settings.ssh, port: settings.port, identityFile: settings.identity_file, knownHosts: settings.known_hosts };
    this.connection = new SshConnection({ ...target, controlDir: deps.controlDir, connectTimeoutMs: settings.connect_timeout, persistMs: settings.control_persist, env: deps.env });
    this.label = `${name} (${settings.ssh}${settings.port ? `:${settings.port}` : ""})`;
    this.login = loginCommand(target);
    this.localDir = deps.localDir;
    this.stores = new RemoteStores(this, deps.localDir);
  }

  /** Baton's command words there, or undefined when it is not installed. */
  get batonWords(): string[] | undefined {
    const b = this.settings.baton;
    return b === false ? undefined : typeof b === "string" ? [b] : b;
  }

  /** Connects (once per connection) and learns the machine's home, data dir, roots and Baton. */
  async info(): Promise<RemoteInfo> {
    await this.connection.ensure();
    const generation = this.connection.generation;
    if (this.probed?.generation !== generation) {
      this.probed = { generation, info: this.probe() };
      this.onConnected?.();
    }
    try {
      return await this.probed.info;
    } catch (error) {
      this.probed = undefined;
      throw error;
    }
  }

  private async probe(): Promise<RemoteInfo> {
    const result = await this.run(probeScript(this.batonWords), [this.settings.data_dir ?? "", ...this.settings.roots]);
    if (result.code !== 0) throw new MachineError(`Could not look around on ${this.name} (exit ${result.code}): ${result.stderr.trim().split("\n").at(-1) ?? ""}`);
    const info: RemoteInfo = { home: "", dataDir: "", roots: [], missingRoots: [], env: {} };
    const lines = result.stdout.split("\n");
    const envAt = lines.indexOf("env");
    for (const line of lines.slice(0, envAt < 0 ? lines.length : envAt)) {
      const tab = line.indexOf("\t");
      const [key, value] = [line.slice(0, tab), line.slice(tab + 1)];
      if (key === "home") info.home = value;
      else if (key === "data") info.dataDir = value;
      else if (key === "root") info.roots.push(value);
      else if (key === "noroot") info.missingRoots.push(value);
      else if (key === "baton") info.baton = value;
    }
    for (const line of envAt < 0 ? [] : lines.slice(envAt + 1)) {
      const eq = line.indexOf("=");
      if (eq > 0) info.env[line.slice(0, eq)] = line.slice(eq + 1);
    }
    return info;
  }

  /** Runs a script of remote-sh.ts with the machine's environment. */
  run(script: string, args: string[] = [], options: { input?: string | Readable; timeoutMs?: number } = {}): Promise<RunResult> {
    return this.connection.run(remoteCommand(script, args), { inputPrefix: envLine(this.settings.env), ...options });
  }

  async dataDir(): Promise<string> {
    return (await this.info()).dataDir;
  }

  async directory(path: string): Promise<string | undefined> {
    await this.info();
    const result = await this.run(DIRECTORY_SCRIPT, [path]);
    return result.code === 0 ? result.stdout.trim() || undefined : undefined;
  }

  async roots(): Promise<string[]> {
    return (await this.info()).roots;
  }

  get configuredRoots(): readonly string[] {
    return this.settings.roots;
  }

  async launch(request: AgentLaunchRequest): Promise<MachineLaunch> {
    const info = await this.info();
    if (!(await this.directory(request.cwd))) {
      throw new AgentError(`The workspace \`${request.cwd}\` no longer exists on ${this.name}, so the session is not resumed anywhere else. Start over with /new or /workspace --switch.`, {
        fatal: true,
      });
    }
    const argv = this.agentCommand(request);
    mkdirSync(this.localDir, { recursive: true, mode: PRIVATE_DIR_MODE }); // where the ssh process starts
    const env: Record<string, string> = { ...this.settings.env, ...request.env };
    if (this.settings.data_dir) env.BATON_DATA_DIR = info.dataDir;
    return {
      command: "ssh",
      args: this.connection.sessionArgs(remoteCommand(LAUNCH_SCRIPT, [request.cwd, ...argv, ...request.extraArgs])),
      env: this.connection.options.env,
      cwd: request.cwd,
      transport: {
        localCwd: this.localDir,
        preamble: envLine(env, request.unsetEnv),
        describeExit: (code, stderrTail) => this.describeExit(request, argv[0], code, stderrTail),
        stageFile: (localPath, name) => this.stageFile(request.cwd, localPath, name),
      },
    };
  }

  /** The machine's own command for this agent kind, else the demo agent through Baton there, else the same command. */
  agentCommand(request: Pick<AgentLaunchRequest, "kind" | "command" | "args">): string[] {
    const override = this.settings.agents[request.kind.id];
    if (override) return [override.command, ...override.args];
    if (request.kind.id === "demo") {
      if (!this.batonWords)
        throw new MachineError(`The demo agent runs through Baton, which machines.${this.name}.baton says is not installed on ${this.name}. Install Baton there, or pick another agent.`);
      return [...this.batonWords, "demo-agent"];
    }
    return [request.command, ...request.args];
  }

  private describeExit(request: AgentLaunchRequest, command: string, code: number | null, stderrTail: string): string | undefined {
    const kind = request.kind;
    if (code === SSH_FAILED) return lostConnectionText(this.connection.options, stderrTail);
    if (code === EXIT.notFound && /not found|No such file/i.test(stderrTail)) {
      return `${kind.displayName} is not installed on ${this.name}: \`${command}\` was not found on its PATH. Install it there (${kind.installHint}), or set machines.${this.name}.agents.${kind.id}.command to its full path.`;
    }
    if (code === EXIT.notExecutable) return `\`${command}\` on ${this.name} cannot be run (${stderrTail.split("\n").at(-1) ?? "permission denied"}). Check the file there.`;
    if (code === EXIT.noWorkspace) return `The workspace \`${request.cwd}\` does not exist on ${this.name}.`;
    return undefined;
  }

  /** Copies a file from the chat into the workspace there, over the same connection; returns its path there. */
  async stageFile(workspace: string, localPath: string, name: string): Promise<string> {
    const safe = `${new Date()
      .toISOString()
      .replace(/[-:]/g, "")
      .replace(/\.\d+Z$/, "Z")}-${
      basename(name)
        .replace(/[^\w.@+-]/g, "_")
        .slice(0, MAX_STAGED_NAME) || "file"
    }`;
    const result = await this.run(STAGE_FILE_SCRIPT, [workspace, safe], { input: createReadStream(localPath) });
    const path = result.stdout.trim();
    if (result.code !== 0 || !path) throw new MachineError(`Could not copy ${name} to ${this.name}: ${result.stderr.trim().split("\n").at(-1) || `exit ${result.code}`}`);
    return path;
  }

  listSessions(runtime: string, dir?: string): Promise<StoredSession[]> {
    return this.stores.list(runtime, dir);
  }

  writeBrief(runtime: string, sessionId: string, render: BriefRenderer): Promise<PlacedBrief> {
    return this.stores.writeBrief(runtime, sessionId, render);
  }

  placeBrief(localPath: string): Promise<string> {
    return this.stores.placeBrief(localPath);
  }

  /** The command runs in `cwd` there like an agent does (LAUNCH_SCRIPT: 96 when the directory is gone). */
  exec(argv: readonly string[], cwd: string, options: { timeoutMs?: number } = {}): Promise<ExecResult> {
    return this.run(LAUNCH_SCRIPT, [cwd, ...argv], options);
  }

  copyOut(workspace: string, path: string, maxBytes: number, dest: string): Promise<{ size: number; path: string }> {
    return copyRemoteWorkspaceFile(this, workspace, path, maxBytes, dest);
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}

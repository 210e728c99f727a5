// Every machine agents run on: `local` and the `machines:` of the config. The rest of Baton goes
// through this seam and never asks whether a workspace is here or over SSH.
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentError } from "../../kernel/errors.js";
import type { Logger } from "../../kernel/log.js";
import { LocalMachine } from "./local.js";
import { formatWorkspaceRef, LOCAL_MACHINE, parseWorkspaceRef, type WorkspaceRef } from "./refs.js";
import { RemoteHandover, type HandoverEndpoint } from "./remote-handover.js";
import { SshMachine } from "./ssh-machine.js";
import type { Machine, MachineSettings } from "./types.js";

export { LOCAL_MACHINE, type WorkspaceRef } from "./refs.js";
export { MachineError, type Machine } from "./types.js";
export type { HandoverEndpoint } from "./remote-handover.js";

/** Unix socket paths are limited to about 104 bytes; ssh's %C adds 40 hex characters. */
const MAX_CONTROL_DIR_LENGTH = 60;

export interface MachinesOptions {
  machines: Record<string, MachineSettings>;
  /** `workspaces.roots`: this machine's roots. */
  localRoots: string[];
  dataDir: string;
  /** The daemon's environment (local agents inherit it; ssh runs with it). */
  env: NodeJS.ProcessEnv;
  log: Logger;
}

export class Machines {
  readonly local: LocalMachine;
  private readonly remote = new Map<string, SshMachine>();
  private readonly handovers = new Map<string, RemoteHandover>();

  constructor(private readonly options: MachinesOptions) {
    this.local = new LocalMachine(options.localRoots, options.dataDir, options.env);
    const controlDir = controlDirFor(options.dataDir);
    for (const [name, settings] of Object.entries(options.machines)) {
      this.remote.set(name, new SshMachine(name, settings, { controlDir, localDir: join(options.dataDir, "machines", name), env: options.env }));
    }
  }

  /** Names of the configured machines (not `local`). */
  names(): string[] {
    return [...this.remote.keys()];
  }

  get(name: string): Machine | undefined {
    return name === LOCAL_MACHINE ? this.local : this.remote.get(name);
  }

  parse(text: string): WorkspaceRef {
    return parseWorkspaceRef(text, (name) => this.remote.has(name));
  }

  format(machine: string, path: string): string {
    return formatWorkspaceRef(machine, path);
  }

  /** The machine of a workspace and the path there. A machine no longer in the config is fatal for the thread. */
  locate(workspace: string): { machine: Machine; path: string } {
    // Every `name:` prefix counts here: a thread's local workspace is always an absolute path.
    const ref = parseWorkspaceRef(workspace, () => true);
    const machine = this.get(ref.machine);
    if (!machine)
      throw new AgentError(`This thread's workspace is on the machine "${ref.machine}", which is not in the config any more. Add machines.${ref.machine} back, or start over with /new.`, {
        fatal: true,
      });
    return { machine, path: ref.path };
  }

  /** Terminal handover from the machines that want it: tunnels (or listener URLs) published there. */
  serveHandover(endpoint: HandoverEndpoint): void {
    for (const machine of this.remote.values()) {
      if (machine.settings.handover === "off") continue;
      const handover = new RemoteHandover(machine, endpoint, this.options.log);
      machine.onConnected = () => handover.connected();
      this.handovers.set(machine.name, handover);
      handover.start();
    }
  }

  /**
   * Where agents on a machine reach the daemon's MCP endpoint: `local` for this machine, else the
   * tunnel or listener URL published there (undefined while there is none).
   */
  async mcpUrlOn(machine: string, localUrl: string): Promise<string | undefined> {
    if (machine === LOCAL_MACHINE) return localUrl;
    const handover = this.handovers.get(machine);
    if (!handover) return undefined;
    if (!handover.url) await handover.ready();
    return handover.url;
  }

  /** Baton's command words on a machine (for its `baton mcp`), or undefined when it is not installed there. */
  batonWordsOn(machine: string): string[] | undefined {
    return this.remote.get(machine)?.batonWords;
  }

  /** Removes the handover endpoints published there and ends every connection. */
  async close(): Promise<void> {
    const handovers = [...this.handovers.values()];
    this.handovers.clear();
    await Promise.all(handovers.map((h) => h.close().catch(() => undefined)));
    await Promise.all([...this.remote.values()].map((m) => m.close().catch(() => undefined)));
  }
}

/** `<data dir>/ssh` when short enough for socket paths, else a private directory in the temp dir. */
function controlDirFor(dataDir: string): string {
  const preferred = join(dataDir, "ssh");
  if (preferred.length <= MAX_CONTROL_DIR_LENGTH) return preferred;
  return join(tmpdir(), `baton-ssh-${createHash("sha256").update(dataDir).digest("hex").slice(0, 12)}`);
}

// What the rest of Baton sees of a machine: where a workspace is, how an agent process starts
// there, and how its session store is read. `local` is this machine; the others are reached
// with OpenSSH. Only src/agents/machines/ knows which is which.
import { AgentError } from "../../kernel/errors.js";
import type { HostTransport } from "../host.js";
import type { AgentKind } from "../products/index.js";
import type { StoredSession, StoreOptions } from "../stores/index.js";

/** The shape of `machines.<name>` in the config (validated there). */
export interface MachineSettings {
  ssh: string;
  port?: number;
  identity_file?: string;
  known_hosts?: string;
  roots: string[];
  agents: Record<string, { command: string; args: string[] }>;
  env: Record<string, string>;
  baton: string | string[] | false;
  data_dir?: string;
  handover: "tunnel" | "listener" | "off";
  handover_url?: string;
  connect_timeout: number;
  control_persist: number;
}

/** An agent process to start, as the config and the thread describe it. */
export interface AgentLaunchRequest {
  kind: AgentKind;
  /** The kind's ACP command, or the profile's override. */
  command: string;
  args: string[];
  /** Model and profile arguments, after the command's own. */
  extraArgs: string[];
  /** What Baton sets for the agent: model, profile env, BATON_THREAD_ID. */
  env: Record<string, string>;
  /** Variables that would turn approvals off: removed wherever the agent runs. */
  unsetEnv: string[];
  /** The workspace, as a path on the machine. */
  cwd: string;
}

/** The process the supervisor spawns for an agent, and how it reaches the machine. */
export interface MachineLaunch {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** The workspace on the machine (the ACP session's cwd). */
  cwd: string;
  transport?: HostTransport;
}

export interface ExecResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A brief written for a machine: its path there, and its text (the first prompt carries it whole). */
export interface PlacedBrief {
  path: string;
  /** Missing only when an older Baton on the other machine wrote the brief and did not send it. */
  text?: string;
}

/** Renders a brief with the local store readers: from these store options into this directory. */
export type BriefRenderer = (store: StoreOptions, outputDir: string) => Promise<{ path: string; text: string }>;

export interface Machine {
  readonly name: string;
  /** For the chat: "this machine", "build (dev@build.internal)". */
  readonly label: string;
  /** How a person opens a terminal there (`ssh -p 2222 dev@build`); undefined for this machine. */
  readonly login?: string;
  /** The canonical path of an existing directory (`~` expanded), or undefined when there is none. */
  directory(path: string): Promise<string | undefined>;
  /** The workspace roots, canonical. */
  roots(): Promise<string[]>;
  /** The roots as the config gives them, for messages. */
  readonly configuredRoots: readonly string[];
  /** The process to spawn; throws a fatal AgentError when the workspace is gone, a MachineError when unreachable. */
  launch(request: AgentLaunchRequest): Promise<MachineLaunch>;
  /** Sessions of one runtime in this machine's store, newest first; `dir` keeps those at or below it. */
  listSessions(runtime: string, dir?: string): Promise<StoredSession[]>;
  /** Writes a brief of a stored session where agents on this machine can read it; returns its path there and its text. */
  writeBrief(runtime: string, sessionId: string, render: BriefRenderer): Promise<PlacedBrief>;
  /** Makes a brief written here readable by agents on this machine; returns its path there. */
  placeBrief(localPath: string): Promise<string>;
  /** Baton's data dir there (thread worktrees live under it); this machine's is the daemon's own. */
  dataDir(): Promise<string>;
  /** Runs a command (no shell) in a directory there, e.g. git for subagent worktrees. */
  exec(argv: readonly string[], cwd: string, options?: { timeoutMs?: number }): Promise<ExecResult>;
  /**
   * Copies a file of a workspace there to `dest` on this machine, for the chat. `path` is relative
   * to the workspace or absolute; its real path (symlinks and `..` resolved) must be inside the
   * workspace's real path. Throws FileRefusedError with the reason (outside, missing, too large).
   */
  copyOut(workspace: string, path: string, maxBytes: number, dest: string): Promise<{ size: number; path: string }>;
  close(): Promise<void>;
}

/**
 * A machine could not be reached or refused Baton: an ordinary fault, reported with its fix. The
 * thread stays open; the next message tries again.
 */
export class MachineError extends AgentError {
  constructor(userMessage: string, options?: { detail?: string; cause?: unknown }) {
    super(userMessage, { ...options, fatal: false });
  }
}

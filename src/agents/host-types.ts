// What a host is given and what it reports: the agent process to spawn, where its updates and
// requests go, how it reaches another machine, the time-outs of its start, the session it opened.
import type * as acp from "@agentclientprotocol/sdk";
import type { AgentKind } from "./products/index.js";

export interface HostSink {
  /** A session/update from the agent. `replay` is true while session/load replays old history. */
  onUpdate(update: acp.SessionUpdate, replay: boolean): void;
  /** A permission request; resolves with the user's answer. Never auto-allowed. */
  requestPermission(request: acp.RequestPermissionRequest): Promise<acp.RequestPermissionResponse>;
  /** The process exited (any reason). `expected` is true after stop(). `stderr` is its bounded, scrubbed tail. */
  onExit(info: { code: number | null; signal: string | null; stderr: string; expected: boolean }): void;
}

/** How the process reaches an agent on another machine (set by src/agents/machines/ only). */
export interface HostTransport {
  /** Where the local process (ssh) starts; `cwd` is then the workspace on the other machine. */
  localCwd?: string;
  /** Written to the process's stdin before ACP starts (the environment, kept off command lines). */
  preamble?: string;
  /** The chat's explanation of an exit when the transport knows better (a dropped connection). */
  describeExit?(code: number | null, stderrTail: string): string | undefined;
  /** Copies a local file to where the agent can read it; returns its path there. */
  stageFile?(localPath: string, name: string): Promise<string>;
}

/** How long each step of a start may take before the start counts as hung. */
export interface StartTimeouts {
  spawnMs: number;
  initializeMs: number;
  sessionMs: number;
}

export const DEFAULT_START_TIMEOUTS: StartTimeouts = { spawnMs: 10_000, initializeMs: 60_000, sessionMs: 120_000 };

export interface HostSpec {
  kind: AgentKind;
  cwd: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  sink: HostSink;
  transport?: HostTransport;
  startTimeouts?: StartTimeouts;
  /** agents.nice: "idle" (Linux's idle scheduling class), or steps below Baton's own CPU priority; unset or 0: Baton's own. */
  niceness?: AgentNiceness;
}

/** agents.nice: Linux's idle scheduling class, or steps below Baton's own CPU priority (0: the same). */
export type AgentNiceness = "idle" | number;

export interface OpenedSession {
  sessionId: string;
  /** How the session was opened: new, resume, load — or new because resuming failed. */
  how: "new" | "resume" | "load" | "new-after-failed-resume";
  note?: string;
}

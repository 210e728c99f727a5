// What the supervisor is given and what it reports: the launch of a host, where a turn's output
// goes, the hooks the conversation core implements, the limits.
import type { ContentBlock, McpServer, RequestPermissionRequest, RequestPermissionResponse, SessionUpdate, StopReason } from "@agentclientprotocol/sdk";
import type { AgentError } from "../kernel/errors.js";
import type { Logger } from "../kernel/log.js";
import type { ThreadRecord } from "../threads/registry.js";
import type { AgentHost, HostTransport, OpenedSession, StartTimeouts } from "./host.js";
import type { AgentNiceness } from "./host-types.js";
import type { AgentKind } from "./products/index.js";
import type { PromptTokens } from "./usage.js";

export interface LaunchSpec {
  kind: AgentKind;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Set for an agent on another machine (src/agents/machines/). */
  transport?: HostTransport;
  /** agents.nice; 0 for ssh to another machine, which carries Baton's own traffic. */
  niceness?: AgentNiceness;
}

/** Where a turn's output goes (the renderer fanning out to every attached route). */
export interface TurnOutput {
  update(update: SessionUpdate): void;
  requestPermission(request: RequestPermissionRequest): Promise<RequestPermissionResponse>;
  notice(text: string): void;
  finish(outcome: { stopReason?: StopReason; error?: string; usage?: PromptTokens }): Promise<void>;
  /** The turn was cancelled: its open approval requests answer "cancelled". */
  cancelApprovals(): void;
  pendingApprovals(): number;
}

export interface SupervisorHooks {
  thread(id: string): ThreadRecord | undefined;
  /** Throws a fatal AgentError when the thread cannot run (workspace gone, unknown agent). */
  launchSpec(thread: ThreadRecord): LaunchSpec | Promise<LaunchSpec>;
  beginTurn(thread: ThreadRecord): TurnOutput;
  /** Before a thread's session is resumed in a new process: keep what a failed resume could lose. */
  beforeResume?(thread: ThreadRecord): Promise<void>;
  /**
   * The session is open on a new host (settings the thread chose are applied again here). May give
   * content to send ahead of the next prompt (the context of a session that could not be resumed)
   * and a note to show instead of the host's.
   */
  sessionOpened(thread: ThreadRecord, opened: OpenedSession, host: AgentHost): Promise<{ carry?: ContentBlock[]; note?: string } | void>;
  /** A notice about a host started outside a turn (a resume that failed), for the thread's chats. */
  notice?(thread: ThreadRecord, text: string): void;
  /** The agent switched its mode or model by itself. */
  settingChanged?(thread: ThreadRecord, kind: "mode" | "model", id: string): void;
  fatal(thread: ThreadRecord, error: AgentError): Promise<void>;
  /** A prompt submitted with an id left the queue: its turn starts, or the queue was dropped. */
  promptTaken?(threadId: string, id: string, why: "started" | "dropped"): void;
  /** The MCP servers a new host gets in its session (Baton's own); `release` once the process is gone. */
  mcpServers?(thread: ThreadRecord, agent: { http: boolean }): Promise<McpAccess>;
  /** The thread's host was (re)built: a running process with its session open. */
  hostStarted?(thread: ThreadRecord): void;
  /** Agent processes Baton runs besides the thread hosts (subagents): they count against max_live_hosts. */
  otherLiveHosts?(): number;
  /** The launch a new thread gets by default, when a spare agent process should be kept ready for it (else undefined). */
  spareLaunch?(): Promise<LaunchSpec | undefined>;
  /** A host stopped or went idle: room for something waiting for a slot. */
  capacityFreed?(): void;
  log: Logger;
}

export interface McpAccess {
  servers: McpServer[];
  release(): void;
}

export interface SupervisorOptions {
  maxLiveHosts: number;
  idleShutdownMs: number;
  startTimeouts?: StartTimeouts;
}

export type HostState = "starting" | "running" | "idle" | "stopped";

/** A running host of a thread (the supervisor's own bookkeeping). */
export interface Live {
  host: AgentHost;
  /** Sent ahead of the next prompt, once. */
  carry?: ContentBlock[];
  turn?: TurnOutput;
  /** Between spawn and an open session: neither idle (never evicted) nor taking prompts yet. */
  starting?: boolean;
  idleTimer?: NodeJS.Timeout;
  profileKey: string;
  releaseMcp?: () => void;
}

interface QueuedPrompt {
  prompt: ContentBlock[];
  /** Set for prompts the caller keeps elsewhere (persisted), so it hears when they leave the queue. */
  id?: string;
}

export interface Queue {
  items: QueuedPrompt[];
  running: boolean;
  drained: Array<() => void>;
}

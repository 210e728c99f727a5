// What the supervisor is given and what it reports: a turn's prompt with its launch and where its
// output goes, the lifecycle events, the limits.
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

/** How a thread's host starts: the process, Baton's MCP servers for it, what follows the open session. */
export interface HostLaunch {
  spec: LaunchSpec;
  /** Baton's own MCP servers for the session (over HTTP or not is known once the agent started); `release` once the process is gone. */
  mcpServers?(agent: { http: boolean }): Promise<McpAccess>;
  /**
   * The session is open on the new host (settings the thread chose are applied again here). May give
   * content to send ahead of the next prompt (the context of a session that could not be resumed)
   * and a note to show instead of the host's.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: an implementation with nothing to add is a plain async function
  sessionOpened(opened: OpenedSession, host: AgentHost): Promise<{ carry?: ContentBlock[]; note?: string } | void>;
}

/** A thread whose host should run, and its launch. */
export interface HostRequest {
  thread: ThreadRecord;
  /**
   * Made only when a process must start (over SSH its checks are round trips); what a failed resume
   * could lose is kept before it resolves. Throws a fatal AgentError when the thread cannot run.
   */
  launch(): Promise<HostLaunch>;
}

/** A turn as it starts: the thread's host and where the turn's output goes. */
export interface TurnStart extends HostRequest {
  sink: TurnOutput;
}

export interface TurnRequest {
  threadId: string;
  prompt: ContentBlock[];
  /** Set for prompts the caller keeps elsewhere (persisted): it hears when they leave the queue. */
  id?: string;
  /** Made when the turn starts, not when it is queued (the thread may change while it waits); undefined once the thread closed. */
  start(): TurnStart | undefined;
  /** The prompt left the queue without a turn (its thread's host was stopped for good). */
  dropped?(): void;
}

/** What the supervisor reports as hosts and turns go. */
export type SupervisorEvent =
  /** A notice about a host started outside a turn (a resume that failed), for the thread's chats. */
  | { type: "notice"; thread: ThreadRecord; text: string }
  /** The agent switched its mode or model by itself. */
  | { type: "setting-changed"; thread: ThreadRecord; kind: "mode" | "model"; id: string }
  /** A prompt submitted with an id left the queue: its turn starts, or the queue was dropped. */
  | { type: "prompt-taken"; threadId: string; id: string; why: "started" | "dropped" }
  /** The thread's host was (re)built: a running process with its session open. */
  | { type: "host-started"; thread: ThreadRecord }
  /** The thread cannot run (its host was stopped and its queue dropped); the supervisor waits for this report to be handled. */
  | { type: "fatal"; thread: ThreadRecord; error: AgentError }
  /** A host stopped or went idle: room for something waiting for a slot. */
  | { type: "capacity-freed" }
  /** The thread's host went idle or its process is gone (state() says what it is now). */
  | { type: "host-state"; threadId: string };

export interface SupervisorDeps {
  report(event: SupervisorEvent): void | Promise<void>;
  /** Agent processes Baton runs besides the thread hosts (subagents): they count against max_live_hosts. */
  otherLiveHosts(): number;
  log: Logger;
}

export interface McpAccess {
  servers: McpServer[];
  release(): void;
  /** The servers were given ahead, to a spare's session: from now on they act for this thread. */
  bind?(threadId: string): void;
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

export interface Queue {
  items: TurnRequest[];
  running: boolean;
  drained: Array<() => void>;
}

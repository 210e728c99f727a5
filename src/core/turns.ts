// The core's side of a turn: a prompt goes down to the supervisor with how its turn starts (the
// thread as it is then, the chat output of the turn, the launch of a host when one must start), and
// the supervisor's reports of hosts and turns come back in through the wiring (supervisor-reports.ts).
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { AgentHost, OpenedSession } from "../agents/host.js";
import type { HostLaunch, HostRequest, LaunchSpec, McpAccess, Supervisor, TurnOutput, TurnRequest, TurnStart } from "../agents/supervisor.js";
import type { TurnUsage } from "../threads/chat-state.js";
import type { Metrics } from "../kernel/metrics.js";
import type { PlatformLogger, PlatformUser } from "../platforms/contract.js";
import type { ThreadRecord, ThreadRegistry } from "../threads/registry.js";
import type { ApprovalBroker } from "./approvals.js";
import { auditedTurn, type AuditTrail, type TurnAudit } from "./audit.js";
import type { OutboundFiles } from "./outfiles.js";
import type { RouteTarget, StreamSettings } from "./stream.js";
import type { CutTurns } from "./cut-turns.js";
import { ChatTurn, meteredTurn } from "./turn.js";
import type { TurnTicket } from "../commands/context.js";
import { turnSpend } from "./limits/spend.js";

export interface TurnsDeps {
  registry: ThreadRegistry;
  supervisor: Supervisor;
  approvals: ApprovalBroker;
  /** Each turn is recorded when it ends: who, the agent, the usage. */
  trail: AuditTrail;
  metrics: Metrics;
  log: PlatformLogger;
  targets(thread: ThreadRecord): RouteTarget[];
  streamSettings(): StreamSettings;
  showUsage(): boolean;
  files(): OutboundFiles;
  recordUsage(thread: ThreadRecord, usage: TurnUsage): Promise<void>;
  /** Where the thread's agent works: its worktree, or its workspace (thread-worktrees.ts). */
  workdir(thread: ThreadRecord): string;
  /** How a thread's agent is launched (agents.ts); throws a fatal AgentError when it cannot run. */
  launchSpec(thread: ThreadRecord): Promise<LaunchSpec>;
  /** Before a session is resumed in a new process: keep what a failed resume could lose (agents.ts). */
  keepBriefBeforeResume(thread: ThreadRecord): Promise<void>;
  /** Content to carry and a note once a session opened, when its resume failed (agents.ts). */
  afterSessionOpened(thread: ThreadRecord, previous: string | undefined, opened: OpenedSession): Promise<{ carry?: ContentBlock[]; note?: string } | undefined>;
  /** The thread's chosen mode and model applied again on a new host; notes say what could not be. */
  reapplySettings(thread: ThreadRecord, host: AgentHost): Promise<string[]>;
  mcpServers(thread: ThreadRecord, agent: { http: boolean }): Promise<McpAccess>;
  notify(thread: ThreadRecord, text: string): void;
  /** What the thread's routes are attached to changed (its session here): platforms that show it read it again. */
  routesChanged(thread: ThreadRecord): void;
  /** Threads with a running turn, kept on disk: after a crash their chats are told the answer was cut off. */
  cutTurns: CutTurns;
}

export class Turns {
  /** Per thread: how many turns its host began, and the current one (a multi-agent turn belongs to one). */
  private readonly hostTurns = new Map<string, { seq: number; turn?: ChatTurn }>();
  /** The platform message id of the last prompt per route (for a reaction while its turn runs). */
  private readonly lastPromptMessage = new Map<string, string | undefined>();

  constructor(private readonly deps: TurnsDeps) {}

  /** Queues a prompt for the thread's agent; returns how many turns are ahead of it. */
  submit(threadId: string, prompt: ContentBlock[], id?: string, author?: PlatformUser, ticket?: TurnTicket): number {
    const request: TurnRequest = { threadId, prompt, id, start: () => this.start(threadId, author, ticket), dropped: () => ticket?.end(false) };
    return this.deps.supervisor.submit(request);
  }

  /** The thread's host with its session open, started now when none runs (a setting changed before the first prompt). */
  async host(thread: ThreadRecord): Promise<AgentHost> {
    return this.deps.supervisor.host(thread.id) ?? this.deps.supervisor.open(this.hostRequest(thread));
  }

  /** A prompt is likely on its way (someone types): the thread's agent starts now, in the background. */
  prewarm(thread: ThreadRecord): void {
    this.deps.supervisor.prewarm(this.hostRequest(thread));
  }

  /** A prompt was taken from `route` (its message gets the running reaction). */
  promptSeen(route: string, messageId: string | undefined): void {
    this.lastPromptMessage.set(route, messageId);
  }

  /** How many turns the thread's host began, and a way to send what the current one streamed so far. */
  hostTurn(threadId: string): { seq: number; flush(): void } {
    const current = this.hostTurns.get(threadId);
    return { seq: current?.seq ?? 0, flush: () => current?.turn?.flush() };
  }

  /** Whose prompt started the thread's running turn; undefined when none runs or no one in the chat started it. */
  runningAuthor(threadId: string): PlatformUser | undefined {
    return this.hostTurns.get(threadId)?.turn?.requester;
  }

  /** The thread closed or failed: its turn count starts again. */
  forget(threadId: string): void {
    this.hostTurns.delete(threadId);
  }

  private start(threadId: string, author: PlatformUser | undefined, ticket: TurnTicket | undefined): TurnStart | undefined {
    const thread = this.deps.registry.get(threadId);
    if (!thread?.open) {
      ticket?.end(false);
      return undefined;
    }
    const audit = this.deps.trail.beginTurn(thread, author);
    return { ...this.hostRequest(thread), sink: auditedTurn(meteredTurn(this.begin(thread, author, ticket, audit), thread.agent, this.deps.metrics), audit) };
  }

  private hostRequest(thread: ThreadRecord): HostRequest {
    return { thread, launch: () => this.launch(thread) };
  }

  private async launch(thread: ThreadRecord): Promise<HostLaunch> {
    const { deps } = this;
    const spec = await deps.launchSpec(thread);
    if (thread.session) await deps.keepBriefBeforeResume(thread);
    return {
      spec,
      mcpServers: (agent) => deps.mcpServers(thread, agent),
      sessionOpened: async (opened, host) => {
        const previous = thread.session;
        await deps.registry.observeSession(thread.id, opened.sessionId);
        deps.routesChanged(thread);
        for (const note of await deps.reapplySettings(thread, host)) deps.notify(thread, `ℹ️ ${note}`);
        return deps.afterSessionOpened(thread, previous, opened);
      },
    };
  }

  private begin(thread: ThreadRecord, author: PlatformUser | undefined, ticket: TurnTicket | undefined, audit: TurnAudit): TurnOutput {
    const { deps } = this;
    const lifecycle = {
      ended: () => {
        const current = this.hostTurns.get(thread.id);
        if (current?.turn === turn) current.turn = undefined;
        ticket?.end(true);
      },
      // A turn counts as running (cut off, should Baton die) until its answer has reached the chats:
      // an answer still waiting for the platform's pacing when the process dies is lost too.
      delivered: () => deps.cutTurns.ended(thread.id),
    };
    const turn = new ChatTurn(
      thread.id,
      () => deps.targets(thread),
      deps.streamSettings(),
      deps.approvals,
      deps.log,
      (route) => this.lastPromptMessage.get(route),
      lifecycle,
      {
        workspace: deps.workdir(thread),
        files: deps.files(),
        showUsage: deps.showUsage(),
        recordUsage: (usage) => {
          // What the turn added to its session's running cost: read before this report is recorded.
          const now = deps.registry.get(thread.id) ?? thread;
          const spent = turnSpend(usage, now.usage.costs[now.session ?? "-"]);
          ticket?.charge(spent);
          audit.usage(usage, spent.usd);
          return deps.recordUsage(thread, usage);
        },
        log: deps.log,
      },
      author,
    );
    this.hostTurns.set(thread.id, { seq: (this.hostTurns.get(thread.id)?.seq ?? 0) + 1, turn });
    deps.cutTurns.started(thread.id);
    return turn;
  }
}

// The core the platforms talk to: inbound messages and presses go through the conversation
// (conversation/: one line per route, addressing, access, command or prompt); a thread's output goes
// to its routes through each platform's Outbox (order, pacing, retries, splitting); approvals are
// shown and updated here. Its parts are made and connected in wiring.ts.
import type { ActionOutcome, ActionPress, CommonPlatformSettings, InboundMessage, PlatformAdapter, PlatformCore, PlatformLogger, RouteInfo, TypingStart } from "../platforms/contract.js";
import type { HandoverApi, ThreadsApi } from "../commands/context.js";
import { COMMANDS } from "../commands/index.js";
import type { Supervisor } from "../agents/supervisor.js";
import { SPARE_SCOPE } from "../agents/spare.js";
import type { AuditBody, ThreadRecord, ThreadRegistry } from "../threads/registry.js";
import type { BatonConfig } from "../config/schema.js";
import type { BatonAgents } from "./agents.js";
import type { ApprovalBroker } from "./approvals.js";
import type { FileCache } from "./files.js";
import type { Platform } from "./conversation/inbound.js";
import type { RouteTarget } from "./stream.js";
import type { Workspaces } from "./workspaces.js";
import { drainTurns, resumeQueued, type RestartDeps } from "./restart.js";
import type { Machines } from "../agents/machines/index.js";
import { loadMarkdown } from "../render/markdown.js";
import type { AgentMcp } from "./agent-mcp.js";
import type { SubagentManager } from "./subagents/manager.js";
import type { ChatFeatureParts } from "./features.js";
import type { WorkspaceProposals } from "./workspace-proposals.js";
import { wireCore, type CoreOptions, type CoreParts, type CoreState } from "./wiring.js";

export type { CoreOptions } from "./wiring.js";

export class BatonCore implements PlatformCore {
  readonly log: PlatformLogger;
  readonly registry: ThreadRegistry;
  readonly supervisor: Supervisor;
  readonly approvals: ApprovalBroker;
  readonly agents: BatonAgents;
  readonly workspaces: Workspaces;
  /** This machine and the configured others: where each workspace's agent runs. */
  readonly machines: Machines;
  readonly threads: ThreadsApi;
  readonly files: FileCache;
  /** Baton's MCP server for the agents it runs (connected once the endpoint listens). */
  readonly mcp: AgentMcp;
  /** The subagents of threads, and the MCP tools that run them. */
  readonly subagents: SubagentManager;
  /** Mode and model, bindings, files back, usage, schedules and voice notes. */
  readonly chat: ChatFeatureParts;
  /** Workspaces the agents ask for: proposals a person confirms with a button. */
  readonly proposals: WorkspaceProposals;
  private readonly parts: CoreParts;
  private readonly state: CoreState;
  /** Threads whose turn a crash cut off when Baton last ran (read before any turn of this run rewrites the file). */
  private readonly cutBeforeStart: { threads: string[]; notice: string };

  constructor(private readonly options: CoreOptions) {
    this.log = options.log;
    this.registry = options.registry;
    this.state = {};
    const parts = (this.parts = wireCore(options, this.state));
    this.cutBeforeStart = parts.cutTurns.takeLeftOver();
    ({ supervisor: this.supervisor, approvals: this.approvals, agents: this.agents, workspaces: this.workspaces, machines: this.machines } = parts);
    ({ threads: this.threads, files: this.files, mcp: this.mcp, subagents: this.subagents, chat: this.chat, proposals: this.proposals } = parts);
  }

  /** The pickup service (set by the daemon once its MCP endpoint listens). */
  get handover(): HandoverApi | undefined {
    return this.state.handover;
  }

  set handover(service: HandoverApi | undefined) {
    this.state.handover = service;
  }

  /** Registers a platform instance; its common settings (listen_all_in, file limit) are applied here. */
  addAdapter(adapter: PlatformAdapter, settings: Partial<CommonPlatformSettings> = {}): void {
    this.parts.platforms.add(adapter, settings);
  }

  platformOf(route: string): Platform | undefined {
    return this.parts.platforms.of(route);
  }

  commandList(): Array<{ name: string; description: string }> {
    return COMMANDS.map((c) => ({ name: c.name, description: c.description }));
  }

  async handleMessage(message: InboundMessage): Promise<void> {
    // Every answer renders markdown; the parser loads after start-up (at once if it already has).
    await loadMarkdown();
    return this.parts.inbound.handleMessage(message);
  }

  async handleAction(press: ActionPress): Promise<ActionOutcome> {
    await loadMarkdown();
    return this.parts.inbound.handleAction(press);
  }

  isAllowed(userId: string, route: string): boolean {
    return this.parts.inbound.isAllowed(userId, route);
  }

  /**
   * Someone allowed is typing: the route's thread gets its agent started (resuming its session) in
   * the background, so the message finds it live; a route with no thread yet (or an agent that
   * cannot resume) gets the spare made ready. Strangers' typing starts nothing.
   */
  handleTyping({ route, user }: TypingStart): void {
    if (!this.parts.inbound.isAllowed(user.id, route)) return;
    const thread = this.registry.threadForRoute(route);
    if (thread?.open) this.parts.turns.prewarm(thread);
    else this.supervisor.warmSpare();
  }

  audit(body: AuditBody, threadId?: string): Promise<void> {
    return this.parts.audit(body, threadId);
  }

  routeInfo(route: string): RouteInfo | undefined {
    const t = this.registry.threadForRoute(route);
    if (!t) return undefined;
    const host = this.supervisor.state(t.id).host;
    // To a platform a starting host is running: a turn is under way.
    return { thread: t.id, agent: t.agent, profile: t.profile, workspace: t.workspace, session: t.session, host: host === "starting" ? "running" : host, open: t.open };
  }

  targets(thread: ThreadRecord): RouteTarget[] {
    return this.parts.platforms.targets(thread);
  }

  /** A reload's live keys. Throws a ConfigError, changing nothing, when the new config cannot work. */
  reconfigure(config: BatonConfig): void {
    const before = this.options.config;
    // Bindings resolve their agents against the new agents section.
    this.agents.reconfigure(config.agents);
    try {
      this.chat.reconfigure(config);
    } catch (error) {
      this.agents.reconfigure(before.agents);
      throw error;
    }
    this.options.config = config;
    this.workspaces.reconfigure(config.workspaces);
    // Last: the spare's launch depends on the default agent and the default workspace.
    this.supervisor.reloaded();
  }

  /** Open threads, turns running, prompts waiting and approvals pending, for /status and /metrics. */
  counts(): { openThreads: number; turnsRunning: number; queuedPrompts: number; pendingApprovals: number; liveHosts: number } {
    const out = { openThreads: 0, turnsRunning: 0, queuedPrompts: 0, pendingApprovals: 0, liveHosts: this.supervisor.liveCount() };
    for (const t of this.registry.openThreads()) {
      const state = this.supervisor.state(t.id);
      out.openThreads++;
      if (state.host === "running") out.turnsRunning++;
      out.queuedPrompts += state.queued;
      out.pendingApprovals += state.approvals;
    }
    return out;
  }

  /** After a start: turns a crash cut off are marked in their chats; prompts queued when Baton last stopped run now, in their order. */
  async resumeQueued(): Promise<number> {
    await this.parts.worktrees.pruneAtStart();
    for (const id of this.cutBeforeStart.threads.splice(0)) {
      const thread = this.registry.get(id);
      if (thread?.open) {
        this.log.warn({ thread: id }, "a turn was cut off when Baton last stopped without a clean shutdown");
        // Its end was never recorded: the trail says how it ended, if not whose it was.
        this.parts.trail.note({ action: "turn", outcome: "cut_off", detail: "Baton stopped without a clean shutdown while it ran" }, id);
        void this.parts.platforms.notify(thread, this.cutBeforeStart.notice);
      }
    }
    return resumeQueued(this.restartDeps());
  }

  /** Daemon shutdown: running turns get `graceMs` to finish (restart.ts); hosts stop; threads stay open. */
  async shutdown(graceMs = 0): Promise<void> {
    // No scheduled prompt starts while Baton drains.
    this.chat.scheduler.stop();
    await drainTurns(this.restartDeps(), graceMs);
    await this.parts.cutTurns.closeCleanly();
    await this.subagents.shutdown();
    await this.supervisor.stopAll();
    this.parts.limits.stop();
    this.files.close();
    await this.machines.close();
  }

  private restartDeps(): RestartDeps {
    const { registry, supervisor, approvals, log } = this;
    return { registry, supervisor, approvals, log, submit: (id, prompt, queued) => this.parts.turns.submit(id, prompt, queued), notify: (t, text) => this.parts.platforms.notify(t, text) };
  }

  /** Idle time after start-up: an agent process is started ahead for the first new thread (when the config wants one). */
  prepareSpare(): void {
    this.supervisor.prepareSpare(async () => {
      const workspace = await this.workspaces.default();
      const spec = await this.agents.spareLaunch(workspace);
      return spec && { spec, mcpServers: (agent) => this.mcp.serversFor(workspace, { thread: SPARE_SCOPE }, agent) };
    });
  }
}

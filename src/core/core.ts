// The core the platforms talk to: inbound messages and presses go through Inbound (one line per
// route, addressing, access, the command pipeline); a thread's output goes to its routes through
// each platform's Outbox (order, pacing, retries, splitting); approvals are shown and updated here.
import { join } from "node:path";
import type { ActionOutcome, ActionPress, CommonPlatformSettings, InboundMessage, PlatformAdapter, PlatformCore, PlatformCursors, PlatformLogger, RouteInfo } from "../platforms/contract.js";
import type { HandoverApi, HostChoice, ThreadsApi } from "../commands/context.js";
import { COMMANDS } from "../commands/index.js";
import { Supervisor } from "../agents/supervisor.js";
import type { AuditBody, ThreadRecord, ThreadRegistry } from "../threads/registry.js";
import type { BatonConfig } from "../config/schema.js";
import { commonSettings } from "../platforms/kit/config.js";
import type { Logger } from "../kernel/log.js";
import { BatonAgents } from "./agents.js";
import { ApprovalBroker } from "./approvals.js";
import { Outbox } from "./delivery/outbox.js";
import { FileCache } from "./files.js";
import { Inbound, type Platform } from "./conversation/inbound.js";
import type { RouteTarget } from "./stream.js";
import { ChatTurn, meteredTurn } from "./turn.js";
import { NO_METRICS, type Metrics } from "../kernel/metrics.js";
import { Workspaces } from "./workspaces.js";
import { drainTurns, resumeQueued, type RestartDeps } from "./restart.js";
import { Machines } from "../agents/machines/index.js";
import { loadMarkdown } from "../render/markdown.js";
import { AgentMcp } from "./agent-mcp.js";
import { SubagentManager } from "./subagents/manager.js";
import { wireChatFeatures, type ChatFeatureParts } from "./features.js";
import { WorkspaceProposals } from "./workspace-proposals.js";
import { CutTurns, type RunningTurnsStore } from "./cut-turns.js";

export interface CoreOptions {
  config: BatonConfig;
  dataDir: string;
  registry: ThreadRegistry;
  log: Logger;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Counts turns and pickups (the ops module's recorder); nothing is counted when absent. */
  metrics?: Metrics;
  /** With store.url: running turns are kept there, not in the data dir (the next leader may be elsewhere). */
  runningTurns?: RunningTurnsStore;
  /** With store.url: positions kept for the next leader (when each schedule last ran). */
  cursors?: PlatformCursors;
}

export class BatonCore implements PlatformCore {
  readonly log: PlatformLogger;
  readonly registry: ThreadRegistry;
  readonly supervisor: Supervisor;
  readonly approvals = new ApprovalBroker();
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
  handover?: HandoverApi;
  /** Per thread: how many turns its host began, and the current one (a multi-agent turn belongs to one). */
  private readonly hostTurns = new Map<string, { seq: number; turn?: ChatTurn }>();
  private readonly platforms = new Map<string, Platform>();
  private readonly inbound: Inbound;
  private allow: Set<string>;
  private readonly metrics: Metrics;
  /** The platform message id of the last prompt per route (for a reaction while its turn runs). */
  private readonly lastPromptMessage = new Map<string, string | undefined>();
  /** Threads with a running turn, kept on disk: after a crash their chats are told the answer was cut off. */
  private readonly cutTurns: CutTurns;
  private readonly cutBeforeStart: { threads: string[]; notice: string };

  constructor(private readonly options: CoreOptions) {
    const { config, registry, log } = options;
    this.log = log;
    this.registry = registry;
    this.metrics = options.metrics ?? NO_METRICS;
    this.allow = new Set(config.access.allow);
    this.cutTurns = new CutTurns(options.dataDir, log, options.runningTurns);
    // Read before any turn of this run can rewrite the file.
    this.cutBeforeStart = this.cutTurns.takeLeftOver();
    const env = options.env ?? process.env;
    this.machines = new Machines({ machines: config.machines, localRoots: config.workspaces.roots, dataDir: options.dataDir, env, log });
    this.workspaces = new Workspaces(config.workspaces, this.machines, options.cwd, {
      list: () => registry.registeredWorkspaces(),
      record: (path, name, confirmedBy) => registry.registerWorkspace(path, name, confirmedBy),
    });
    this.mcp = new AgentMcp(this.machines, options.dataDir, log);
    this.supervisor = new Supervisor(
      {
        thread: (id) => registry.get(id),
        launchSpec: (thread) => this.agents.launchSpec(thread),
        beginTurn: (thread) => meteredTurn(this.beginTurn(thread), thread.agent, this.metrics),
        beforeResume: (thread) => this.agents.keepBriefBeforeResume(thread),
        sessionOpened: async (thread, opened, host) => {
          const previous = thread.session;
          await registry.observeSession(thread.id, opened.sessionId);
          for (const note of await this.chat.settings.reapply(thread, host)) this.notify(thread, `ℹ️ ${note}`);
          return this.agents.afterSessionOpened(thread, previous, opened);
        },
        notice: (thread, text) => void this.notify(thread, text),
        settingChanged: (thread, kind, id) => void this.chat.settings.agentChanged(thread, kind, id).catch((error: unknown) => log.warn({ err: error }, "could not record a setting the agent changed")),
        fatal: async (thread, error) => {
          await this.subagents.cancelAll(thread.id, "its thread was closed after an agent error");
          this.subagents.forget(thread.id);
          this.hostTurns.delete(thread.id);
          await registry.close(thread.id, `agent error: ${error.userMessage}`);
        },
        promptTaken: (threadId, id, why) => void registry.promptTaken(threadId, id, why).catch((error: unknown) => log.error({ thread: threadId, err: error }, "could not record that a queued prompt left the queue")),
        mcpServers: (thread, agent) => this.mcp.serversFor(thread.workspace, { thread: thread.id }, agent),
        hostStarted: (thread) => this.subagents.resume(thread.id),
        otherLiveHosts: () => this.subagents.liveCount(),
        spareLaunch: async () => this.agents.spareLaunch(await this.workspaces.default()),
        capacityFreed: () => this.subagents.room.pump(),
        log,
      },
      {
        maxLiveHosts: config.agents.max_live_hosts,
        idleShutdownMs: config.agents.idle_shutdown,
        startTimeouts: { spawnMs: config.agents.start_timeout.spawn, initializeMs: config.agents.start_timeout.initialize, sessionMs: config.agents.start_timeout.session },
      },
    );
    this.agents = new BatonAgents(config.agents, options.dataDir, this.supervisor, registry, this.approvals, this.machines, env, log);
    this.subagents = new SubagentManager({
      registry,
      supervisor: this.supervisor,
      agents: this.agents,
      machines: this.machines,
      approvals: this.approvals,
      mcp: this.mcp,
      targets: (thread) => this.targets(thread),
      streamSettings: this.streamSettings(),
      hostTurn: (threadId) => {
        const current = this.hostTurns.get(threadId);
        return { seq: current?.seq ?? 0, flush: () => current?.turn?.flush() };
      },
      maxPerThread: config.agents.subagents.max_per_thread,
      maxLiveHosts: config.agents.max_live_hosts,
      log,
    });
    this.agents.subagentControl = this.subagents;
    this.threads = this.threadsApi();
    const f = config.files;
    this.files = new FileCache(join(options.dataDir, "cache"), { maxTotalBytes: f.max_total_bytes, maxRouteBytes: f.max_route_bytes, maxAgeMs: f.max_age }, log);
    this.files.open();
    this.chat = wireChatFeatures({
      config,
      dataDir: options.dataDir,
      registry,
      supervisor: this.supervisor,
      agents: this.agents,
      workspaces: this.workspaces,
      machines: this.machines,
      log,
      metrics: this.metrics,
      outboxOf: (route) => this.platformOf(route)?.outbox,
      isAllowed: (userId, route) => this.inbound.isAllowed(userId, route),
      notify: (thread, text) => void this.notify(thread, text),
      cursors: options.cursors,
    });
    this.proposals = new WorkspaceProposals({ workspaces: this.workspaces, thread: (id) => registry.get(id), targets: (t) => this.targets(t), audit: (body, t) => this.audit(body, t), log });
    this.inbound = new Inbound({
      platformOf: (route) => this.platformOf(route),
      services: () => ({ threads: this.threads, agents: this.agents, workspaces: this.workspaces, handover: this.handover, features: this.chat.features }),
      otherAction: (press) =>
        this.chat.settings.isAction(press.actionId) ? this.chat.settings.answerAction(press) : this.proposals.isAction(press.actionId) ? this.proposals.answerAction(press) : undefined,
      approvals: this.approvals,
      files: this.files,
      allow: () => this.allow,
      refusalIntervalMs: config.access.refusal_interval,
      log,
      onPrompt: (route, messageId) => this.lastPromptMessage.set(route, messageId),
    });
  }

  /** Registers a platform instance; its common settings (listen_all_in, file limit) are applied here. */
  addAdapter(adapter: PlatformAdapter, settings: Partial<CommonPlatformSettings> = {}): void {
    if (this.platforms.has(adapter.name)) throw new Error(`two platforms named ${adapter.name}`);
    const common = { ...commonSettings({}), ...settings };
    const outbox = new Outbox(adapter, this.log, this.options.config.rendering.min_edit_gap_ms);
    this.platforms.set(adapter.name, { adapter, outbox, settings: common, listenAllIn: new Set(common.listenAllIn) });
  }

  platformOf(route: string): Platform | undefined {
    return this.platforms.get(route.slice(0, route.indexOf(":")));
  }

  commandList(): Array<{ name: string; description: string }> {
    return COMMANDS.map((c) => ({ name: c.name, description: c.description }));
  }

  async handleMessage(message: InboundMessage): Promise<void> {
    // Every answer renders markdown; the parser loads after start-up (at once if it already has).
    await loadMarkdown();
    return this.inbound.handleMessage(message);
  }

  async handleAction(press: ActionPress): Promise<ActionOutcome> {
    await loadMarkdown();
    return this.inbound.handleAction(press);
  }

  isAllowed(userId: string, route: string): boolean {
    return this.inbound.isAllowed(userId, route);
  }

  audit(body: AuditBody, threadId?: string): Promise<void> {
    if (body.action === "pickup") this.metrics.pickup(body.outcome === "attached" ? "claimed" : "refused");
    return this.registry.audit(body, threadId);
  }

  routeInfo(route: string): RouteInfo | undefined {
    const t = this.registry.threadForRoute(route);
    if (!t) return undefined;
    const host = this.supervisor.state(t.id).host;
    // To a platform a starting host is running: a turn is under way.
    return { thread: t.id, agent: t.agent, profile: t.profile, workspace: t.workspace, session: t.session, host: host === "starting" ? "running" : host, open: t.open };
  }

  targets(thread: ThreadRecord): RouteTarget[] {
    const out: RouteTarget[] = [];
    for (const route of thread.routes) {
      const platform = this.platformOf(route);
      if (platform) out.push({ route, outbox: platform.outbox });
    }
    return out;
  }

  private beginTurn(thread: ThreadRecord): ChatTurn {
    const turn = new ChatTurn(thread.id, () => this.targets(thread), this.streamSettings(), this.approvals, this.log, (route) => this.lastPromptMessage.get(route), () => {
      const current = this.hostTurns.get(thread.id);
      if (current?.turn === turn) current.turn = undefined;
      this.cutTurns.ended(thread.id);
    }, {
      workspace: thread.workspace,
      files: this.chat.outboundFiles,
      showUsage: this.options.config.rendering.show_usage,
      recordUsage: (usage) => this.chat.recordUsage(thread, usage),
      log: this.log,
    });
    this.hostTurns.set(thread.id, { seq: (this.hostTurns.get(thread.id)?.seq ?? 0) + 1, turn });
    this.cutTurns.started(thread.id);
    return turn;
  }

  private streamSettings() {
    const r = this.options.config.rendering;
    return { flushDebounceMs: r.flush_debounce_ms, showThoughts: r.show_thoughts, showTools: r.show_tools };
  }

  private threadsApi(): ThreadsApi {
    const registry = this.registry;
    return {
      forRoute: (route) => registry.threadForRoute(route),
      get: (id) => registry.get(id),
      create: (route, spec) => registry.create(spec, route),
      close: async (id, reason) => {
        await Promise.all([this.supervisor.stopHost(id), this.subagents.cancelAll(id, "its thread was closed")]);
        this.subagents.forget(id);
        this.hostTurns.delete(id);
        await registry.close(id, reason);
      },
      attach: (route, id) => registry.attach(route, id),
      detach: (route) => registry.detach(route),
      findOpenBySession: (agent, session) => registry.findOpenBySession(agent, session),
      changeHost: (id, host: HostChoice) => registry.changeHost(id, host.agent, host.profile),
      recordContextTransfer: (id, runtime, session, path) => registry.recordContextTransfer(id, runtime, session, path),
      all: () => registry.all(),
    };
  }

  /** A config reload: the access list, agents, workspaces and rendering apply from the next message or turn. */
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
    this.allow = new Set(config.access.allow);
    this.workspaces.reconfigure(config.workspaces);
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
    for (const id of this.cutBeforeStart.threads.splice(0)) {
      const thread = this.registry.get(id);
      if (thread?.open) {
        this.log.warn({ thread: id }, "a turn was cut off when Baton last stopped without a clean shutdown");
        void this.notify(thread, this.cutBeforeStart.notice);
      }
    }
    return resumeQueued(this.restartDeps());
  }

  /** Daemon shutdown: running turns get `graceMs` to finish (drainTurns in restart.ts); hosts stop; threads stay open. */
  async shutdown(graceMs = 0): Promise<void> {
    // No scheduled prompt starts while Baton drains.
    this.chat.scheduler.stop();
    await drainTurns(this.restartDeps(), graceMs);
    await this.cutTurns.closeCleanly();
    await this.subagents.shutdown();
    await this.supervisor.stopAll();
    this.files.close();
    await this.machines.close();
  }

  private restartDeps(): RestartDeps {
    return { registry: this.registry, supervisor: this.supervisor, approvals: this.approvals, log: this.log, notify: (t, text) => this.notify(t, text) };
  }

  /** A notice on every route of the thread; resolves per route once delivered (or given up). */
  private notify(thread: ThreadRecord, text: string): Array<Promise<void>> {
    return this.targets(thread).map(({ outbox, route }) => outbox.post(route, { text, kind: "notice" }).settled());
  }
}

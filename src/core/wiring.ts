// How the core's parts are put together, in the order they need each other. The supervisor is
// handed each turn's launch and output (turns.ts) and reports what happens to hosts and turns;
// supervisor-reports.ts says what the core does about each report.
import { join } from "node:path";
import type { HandoverApi, ThreadsApi } from "../commands/context.js";
import { Supervisor } from "../agents/supervisor.js";
import { Machines } from "../agents/machines/index.js";
import type { BatonConfig } from "../config/schema.js";
import type { ActionPress, PlatformCursors } from "../platforms/contract.js";
import type { Logger } from "../kernel/log.js";
import { NO_METRICS, type Metrics } from "../kernel/metrics.js";
import type { AuditBody, ThreadRecord, ThreadRegistry } from "../threads/registry.js";
import { AgentMcp } from "./agent-mcp.js";
import { AuditTrail } from "./audit.js";
import { BatonAgents } from "./agents.js";
import { ApprovalBroker } from "./approvals.js";
import { Inbound } from "./conversation/inbound.js";
import type { Binding } from "./bindings.js";
import { GroupMembership } from "./conversation/groups.js";
import { Roles } from "./conversation/roles.js";
import { personOf } from "./conversation/people.js";
import { wireChatFeatures, type ChatFeatureParts } from "./features.js";
import { CutTurns, type RunningTurnsStore } from "./cut-turns.js";
import { FileCache } from "./files.js";
import { PlatformTable } from "./platform-table.js";
import { SubagentManager } from "./subagents/manager.js";
import { ThreadWorktrees } from "./thread-worktrees.js";
import { WorktreeCommands } from "./worktree-commands.js";
import { threadsApi } from "./threads-api.js";
import { Turns } from "./turns.js";
import { supervisorReports } from "./supervisor-reports.js";
import { PersonLimits } from "./limits/limits.js";
import { memoryLimitStore, type LimitStore } from "./limits/store.js";
import { WorkspaceProposals } from "./workspace-proposals.js";
import { Workspaces } from "./workspaces.js";

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
  /** Where limits per person are counted (the daemon's store.kv or PostgreSQL); memory when absent. */
  limitStore?: LimitStore;
  /** The limits' clock (ms since the epoch); tests move it. */
  now?: () => number;
}

/** What changes after the parts are made: the handover service (set by the daemon). */
export interface CoreState {
  handover?: HandoverApi;
}

export interface CoreParts {
  supervisor: Supervisor;
  approvals: ApprovalBroker;
  roles: Roles;
  machines: Machines;
  workspaces: Workspaces;
  worktrees: ThreadWorktrees;
  mcp: AgentMcp;
  agents: BatonAgents;
  subagents: SubagentManager;
  turns: Turns;
  threads: ThreadsApi;
  files: FileCache;
  chat: ChatFeatureParts;
  proposals: WorkspaceProposals;
  platforms: PlatformTable;
  inbound: Inbound;
  metrics: Metrics;
  /** Threads with a running turn, kept on disk (cut-turns.ts). */
  cutTurns: CutTurns;
  /** Limits per person (limits.per_person) and /usage. */
  limits: PersonLimits;
  /** Who did what, kept in the event log (audit.ts). */
  trail: AuditTrail;
  audit(body: AuditBody, threadId?: string): Promise<void>;
}

export function wireCore(options: CoreOptions, state: CoreState): CoreParts {
  // The chat features need the agents, and the turns need the features: made just below. The roles
  // read the bindings (a binding's allow) only once messages come, after every part is made.
  let chat: ChatFeatureParts | undefined;
  const base = baseParts(options, (route) => chat!.features.binding(route));
  const { registry, log } = options;
  const limits = new PersonLimits({
    config: () => options.config,
    isAdmin: (userId, route) => base.roles.isAdmin(userId, route),
    store: options.limitStore ?? memoryLimitStore(),
    now: options.now,
    log,
  });
  const hosts = hostParts(options, base, limits, () => chat!);
  const { supervisor, agents, turns } = hosts;
  chat = wireChatFeatures({
    ...base,
    config: options.config,
    dataDir: options.dataDir,
    registry,
    supervisor,
    openHost: (thread) => turns.host(thread),
    workdir: (thread) => base.worktrees.workdir(thread),
    beforePrompt: (thread, prompt) => base.worktrees.beforePrompt(thread, prompt),
    agents,
    log,
    outboxOf: (route) => base.platforms.of(route)?.outbox,
    isAllowed: (userId, route) => inbound.mayUse(userId, route),
    cursors: options.cursors,
    limits,
  });
  const files = fileCache(options);
  const audit = (body: AuditBody, threadId?: string) => {
    if (body.action === "pickup") base.metrics.pickup(body.outcome === "attached" ? "claimed" : "refused");
    return base.trail.record(body, threadId);
  };
  const { workspaces, platforms, approvals, roles } = base;
  const features = chat;
  const { worktreeCommands, otherAction, proposals } = buttonCommands(options, base, hosts, features, audit);
  const inbound: Inbound = new Inbound({
    platformOf: (route) => platforms.of(route),
    services: () => ({ threads: hosts.threads, agents, workspaces, worktrees: worktreeCommands, handover: state.handover, features: features.features, limits }),
    otherAction,
    approvals,
    files,
    roles,
    audit: base.trail,
    refusalIntervalMs: options.config.access.refusal_interval,
    log,
    onPrompt: (route, messageId) => turns.promptSeen(route, messageId),
  });
  return { ...base, ...hosts, files, chat, proposals, inbound, limits, audit };
}

/**
 * The commands whose buttons are not approvals: /settings, workspace proposals and worktree
 * commands; `otherAction` answers a press meant for one of them (undefined: none of them knows it).
 */
function buttonCommands(options: CoreOptions, base: BaseParts, hosts: HostParts, features: ChatFeatureParts, audit: CoreParts["audit"]) {
  const { registry, log } = options;
  const { agents } = hosts;
  const proposals = new WorkspaceProposals({ workspaces: base.workspaces, thread: (id) => registry.get(id), targets: (t) => base.platforms.targets(t), audit, log });
  const worktreeCommands = new WorktreeCommands({
    worktrees: base.worktrees,
    registry,
    machines: base.machines,
    forges: () => options.config.forges,
    brief: async (thread) => (thread.session ? (await agents.writeBrief(thread.agent, thread.session, thread.workspace)).text : undefined),
    closeThread: (id, reason) => hosts.threads.close(id, reason),
    log,
  });
  const otherAction = (press: ActionPress) =>
    features.settings.isAction(press.actionId)
      ? features.settings.answerAction(press)
      : proposals.isAction(press.actionId)
        ? proposals.answerAction(press)
        : worktreeCommands.isAction(press.actionId)
          ? worktreeCommands.answerAction(press)
          : undefined;
  return { proposals, worktreeCommands, otherAction };
}

type BaseParts = Pick<CoreParts, "approvals" | "roles" | "platforms" | "machines" | "workspaces" | "worktrees" | "mcp" | "metrics" | "trail"> & { notify(thread: ThreadRecord, text: string): void };

/** What everything else stands on: approvals, the platform table, the machines and workspaces, Baton's MCP server. */
function baseParts(options: CoreOptions, binding: (route: string) => Binding | undefined): BaseParts {
  const { registry, log, config } = options;
  const platforms = new PlatformTable(log, () => options.config.rendering.min_edit_gap_ms);
  const machines = new Machines({ machines: config.machines, localRoots: config.workspaces.roots, dataDir: options.dataDir, env: options.env ?? process.env, log });
  const workspaces = new Workspaces(config.workspaces, machines, options.cwd, {
    list: () => registry.registeredWorkspaces(),
    record: (path, name, confirmedBy) => registry.registerWorkspace(path, name, confirmedBy),
  });
  const worktrees = new ThreadWorktrees({ registry, machines, config: () => options.config, namedIsolation: (w) => workspaces.namedIsolation(w), log });
  // Read at each question, so a reload's access and approvals apply at once.
  const groups = new GroupMembership({ adapterOf: (route) => platforms.of(route)?.adapter, ttlMs: () => options.config.access.group_ttl, log });
  const roles = new Roles(
    () => options.config.access,
    (route) => platforms.of(route)?.adapter.capabilities.usersAuthenticated === true,
    { groups, binding },
  );
  const trail = new AuditTrail({ registry, log, personOf: (userId) => personOf(options.config.access, userId) });
  return {
    approvals: new ApprovalBroker({ by: () => options.config.approvals.by, isAdmin: (userId, route) => roles.isAdmin(userId, route) }, (answer) => trail.approval(answer)),
    roles,
    trail,
    platforms,
    machines,
    workspaces,
    worktrees,
    mcp: new AgentMcp(machines, options.dataDir, log),
    metrics: options.metrics ?? NO_METRICS,
    notify: (thread, text) => void platforms.notify(thread, text),
  };
}

function fileCache(options: CoreOptions): FileCache {
  const f = options.config.files;
  const files = new FileCache(join(options.dataDir, "cache"), { maxTotalBytes: f.max_total_bytes, maxRouteBytes: f.max_route_bytes, maxAgeMs: f.max_age }, options.log);
  files.open();
  return files;
}

type HostParts = Pick<CoreParts, "supervisor" | "turns" | "agents" | "subagents" | "threads" | "cutTurns">;

/** The supervisor, the turns handed to it, the agents and subagents, and what the core does about the supervisor's reports. */
function hostParts(options: CoreOptions, base: BaseParts, personLimits: PersonLimits, chat: () => ChatFeatureParts): HostParts {
  const { registry, log } = options;
  const { approvals, platforms, machines, mcp, notify, worktrees } = base;
  const limits = options.config.agents;
  const cutTurns = new CutTurns(options.dataDir, log, options.runningTurns);
  // The reports arrive only once turns run, after every part below is made.
  const supervisor = new Supervisor(
    { report: (event) => reports(event), otherLiveHosts: () => subagents.liveCount(), log },
    {
      maxLiveHosts: limits.max_live_hosts,
      idleShutdownMs: limits.idle_shutdown,
      startTimeouts: { spawnMs: limits.start_timeout.spawn, initializeMs: limits.start_timeout.initialize, sessionMs: limits.start_timeout.session },
    },
  );
  const turns: Turns = new Turns({
    registry,
    supervisor,
    approvals,
    trail: base.trail,
    metrics: base.metrics,
    log,
    targets: (thread) => platforms.targets(thread),
    streamSettings: () => streamSettings(options.config),
    showUsage: () => options.config.rendering.show_usage,
    files: () => chat().outboundFiles,
    recordUsage: (thread, usage) => chat().recordUsage(thread, usage),
    workdir: (thread) => worktrees.workdir(thread),
    launchSpec: async (thread) => {
      // An agent started before any prompt (/mode on a new thread) gets the thread's worktree too.
      const note = await worktrees.beforePrompt(thread, "");
      if (note) notify(thread, note);
      await worktrees.ensurePresent(thread);
      return agents.launchSpec(thread, worktrees.workdir(thread));
    },
    keepBriefBeforeResume: (thread) => agents.keepBriefBeforeResume(thread),
    afterSessionOpened: (thread, previous, opened) => agents.afterSessionOpened(thread, previous, opened),
    reapplySettings: (thread, host) => chat().settings.reapply(thread, host),
    mcpServers: (thread, agent) => mcp.serversFor(thread.workspace, { thread: thread.id }, agent),
    notify,
    routesChanged: (thread) => platforms.routesChanged(thread.routes),
    cutTurns,
  });
  const agents = new BatonAgents(limits, options.dataDir, supervisor, turns, registry, approvals, machines, options.env ?? process.env, log);
  const subagents = subagentManager(options, base, personLimits, { supervisor, agents, turns });
  agents.subagentControl = subagents;
  const reports = supervisorReports({ registry, log, notify, turns, subagents, platforms, settings: () => chat().settings });
  return { supervisor, turns, agents, subagents, cutTurns, threads: threadsApi({ registry, supervisor, subagents, turns, platforms }) };
}

/** The subagents a thread's agent starts: each round is counted against its requester's limits and kept in the audit trail. */
function subagentManager(options: CoreOptions, base: BaseParts, personLimits: PersonLimits, hosts: Pick<HostParts, "supervisor" | "agents" | "turns">): SubagentManager {
  const { platforms, worktrees, trail } = base;
  const limits = options.config.agents;
  return new SubagentManager({
    registry: options.registry,
    workdir: (thread) => worktrees.workdir(thread),
    supervisor: hosts.supervisor,
    agents: hosts.agents,
    machines: base.machines,
    approvals: base.approvals,
    mcp: base.mcp,
    targets: (thread) => platforms.targets(thread),
    streamSettings: streamSettings(options.config),
    hostTurn: (threadId) => hosts.turns.hostTurn(threadId),
    maxPerThread: limits.subagents.max_per_thread,
    maxLiveHosts: limits.max_live_hosts,
    roundEnded: (round) => {
      const spent = round.requester ? personLimits.roundSpent(round.requester, round.session, round.result.usage) : undefined;
      trail.subagentRound(round, spent?.usd);
    },
    subagentsRefusal: async (requester, route, rounds) => {
      const refusal = await personLimits.subagentsRefusal(requester, route, rounds);
      if (refusal) trail.note({ action: "limit", outcome: "refused", ...trail.who(requester), route, detail: refusal });
      return refusal;
    },
    log: options.log,
  });
}

function streamSettings(config: BatonConfig) {
  const r = config.rendering;
  return { flushDebounceMs: r.flush_debounce_ms, firstSendHoldMs: r.first_send_hold_ms, showThoughts: r.show_thoughts, showTools: r.show_tools };
}

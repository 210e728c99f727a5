// How the core's parts are put together, in the order they need each other. The supervisor is
// handed each turn's launch and output (turns.ts) and reports what happens to hosts and turns;
// `reports` below says what the core does about each report.
import { join } from "node:path";
import type { HandoverApi, ThreadsApi } from "../commands/context.js";
import { Supervisor, type SupervisorEvent } from "../agents/supervisor.js";
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
  const proposals = new WorkspaceProposals({ workspaces, thread: (id) => registry.get(id), targets: (t) => platforms.targets(t), audit, log });
  const features = chat;
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
    approvals: new ApprovalBroker({ by: () => options.config.approvals.by, isAdmin: (userId, route) => roles.isAdmin(userId, route) }, (answer) =>
      trail.note(
        { action: "approval", outcome: answer.outcome, ...trail.who(answer.user), route: answer.route, command: answer.asked, requester: answer.requester?.id, detail: answer.option },
        answer.threadId,
      ),
    ),
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
  const subagents = new SubagentManager({
    registry,
    workdir: (thread) => worktrees.workdir(thread),
    supervisor,
    agents,
    machines,
    approvals,
    mcp,
    targets: (thread) => platforms.targets(thread),
    streamSettings: streamSettings(options.config),
    hostTurn: (threadId) => turns.hostTurn(threadId),
    maxPerThread: limits.subagents.max_per_thread,
    maxLiveHosts: limits.max_live_hosts,
    roundEnded: (round) => {
      const spent = round.requester ? personLimits.roundSpent(round.requester, round.session, round.result.usage) : undefined;
      base.trail.subagentRound(round, spent?.usd);
    },
    subagentsRefusal: async (requester, route, rounds) => {
      const refusal = await personLimits.subagentsRefusal(requester, route, rounds);
      if (refusal) base.trail.note({ action: "limit", outcome: "refused", ...base.trail.who(requester), route, detail: refusal });
      return refusal;
    },
    log,
  });
  agents.subagentControl = subagents;
  const reports = supervisorReports({ registry, log, notify, turns, subagents, platforms, settings: () => chat().settings });
  return { supervisor, turns, agents, subagents, cutTurns, threads: threadsApi({ registry, supervisor, subagents, turns, platforms }) };
}

function streamSettings(config: BatonConfig) {
  const r = config.rendering;
  return { flushDebounceMs: r.flush_debounce_ms, firstSendHoldMs: r.first_send_hold_ms, showThoughts: r.show_thoughts, showTools: r.show_tools };
}

interface ReportDeps {
  registry: ThreadRegistry;
  log: Logger;
  notify(thread: ThreadRecord, text: string): void;
  turns: Turns;
  subagents: SubagentManager;
  platforms: PlatformTable;
  settings(): ChatFeatureParts["settings"];
}

/** What the core does as hosts and turns go; only a fatal error is waited for (its thread closes first). */
function supervisorReports(deps: ReportDeps): (event: SupervisorEvent) => void | Promise<void> {
  const { registry, log, subagents, platforms } = deps;
  const changed = (threadId: string) => platforms.routesChanged(registry.get(threadId)?.routes ?? []);
  const warn = (what: string) => (error: unknown) => log.warn({ err: error }, what);
  return (event) => {
    switch (event.type) {
      case "notice":
        return deps.notify(event.thread, event.text);
      case "setting-changed":
        return void deps.settings().agentChanged(event.thread, event.kind, event.id).catch(warn("could not record a setting the agent changed"));
      case "prompt-taken":
        return void registry
          .promptTaken(event.threadId, event.id, event.why)
          .catch((error: unknown) => log.error({ thread: event.threadId, err: error }, "could not record that a queued prompt left the queue"));
      case "host-started":
        changed(event.thread.id);
        return subagents.resume(event.thread.id);
      case "host-state":
        return changed(event.threadId);
      case "capacity-freed":
        return subagents.room.pump();
      case "fatal":
        return (async () => {
          await subagents.cancelAll(event.thread.id, "its thread was closed after an agent error");
          subagents.forget(event.thread.id);
          deps.turns.forget(event.thread.id);
          const routes = [...event.thread.routes];
          await registry.close(event.thread.id, `agent error: ${event.error.userMessage}`);
          platforms.routesChanged(routes);
        })();
    }
  };
}

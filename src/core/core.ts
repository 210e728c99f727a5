// The core the platforms talk to: it turns each inbound message into a ChatContext and runs the
// command pipeline, answers button presses, and fans a thread's output out to its routes.
import type { ActionOutcome, ActionPress, InboundMessage, PlatformAdapter, PlatformCore, PlatformLogger, RouteInfo } from "../platforms/contract.js";
import type { ChatContext, HandoverApi, HostChoice, ThreadsApi } from "../commands/context.js";
import { COMMANDS, parseMessage } from "../commands/index.js";
import { buildPipeline } from "../commands/pipeline.js";
import { ApprovalBroker } from "./approvals.js";
import { Supervisor } from "../agents/supervisor.js";
import type { AuditBody, ThreadRecord, ThreadRegistry } from "../threads/registry.js";
import type { RouteTarget } from "./stream.js";
import type { BatonConfig } from "../config/schema.js";
import type { Logger } from "../kernel/log.js";
import { BatonAgents } from "./agents.js";
import { ChatTurn } from "./turn.js";
import { Workspaces } from "./workspaces.js";

const SHUTDOWN_DRAIN_MS = 3_000;
const REFUSAL_MEMORY_MAX = 10_000;

export interface CoreOptions {
  config: BatonConfig;
  dataDir: string;
  registry: ThreadRegistry;
  log: Logger;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export class BatonCore implements PlatformCore {
  readonly log: PlatformLogger;
  readonly registry: ThreadRegistry;
  readonly supervisor: Supervisor;
  readonly approvals = new ApprovalBroker();
  readonly agents: BatonAgents;
  readonly workspaces: Workspaces;
  readonly threads: ThreadsApi;
  handover?: HandoverApi;
  private readonly adapters = new Map<string, PlatformAdapter>();
  private readonly pipeline: (ctx: ChatContext) => Promise<void>;
  private readonly refusedAt = new Map<string, number>();
  private readonly allow: Set<string>;
  /** The platform message id of the last prompt per route (for a reaction while its turn runs). */
  private readonly lastPromptMessage = new Map<string, string | undefined>();

  constructor(private readonly options: CoreOptions) {
    const { config, registry, log } = options;
    this.log = log;
    this.registry = registry;
    this.allow = new Set(config.access.allow);
    this.workspaces = new Workspaces(config.workspaces, options.cwd);
    for (const t of registry.all()) if (t.open) this.workspaces.register(t.workspace);
    this.supervisor = new Supervisor(
      {
        thread: (id) => registry.get(id),
        launchSpec: (thread) => this.agents.launchSpec(thread),
        beginTurn: (thread) => new ChatTurn(thread.id, () => this.targets(thread), this.streamSettings(), this.approvals, log, (route) => this.lastPromptMessage.get(route)),
        sessionOpened: (thread, opened) => registry.observeSession(thread.id, opened.sessionId),
        fatal: (thread, error) => registry.close(thread.id, `agent error: ${error.userMessage}`),
        log,
      },
      { maxLiveHosts: config.agents.max_live_hosts, idleShutdownMs: config.agents.idle_shutdown },
    );
    this.agents = new BatonAgents(config.agents, options.dataDir, this.supervisor, registry, this.approvals, options.env);
    this.threads = this.threadsApi();
    this.pipeline = buildPipeline({
      isAllowed: (id) => this.isAllowed(id),
      shouldRefuse: (id) => this.shouldRefuse(id),
      log,
    });
  }

  addAdapter(adapter: PlatformAdapter): void {
    if (this.adapters.has(adapter.name)) throw new Error(`two platforms named ${adapter.name}`);
    this.adapters.set(adapter.name, adapter);
  }

  adapterForRoute(route: string): PlatformAdapter | undefined {
    return this.adapters.get(route.slice(0, route.indexOf(":")));
  }

  commandList(): Array<{ name: string; description: string }> {
    return COMMANDS.map((c) => ({ name: c.name, description: c.description }));
  }

  async handleMessage(message: InboundMessage): Promise<void> {
    const adapter = this.adapterForRoute(message.route);
    if (!adapter) {
      this.log.error({ route: message.route }, "message from a route of no known platform");
      return;
    }
    const parsed = parseMessage(message.text);
    if (parsed.kind === "prompt") this.lastPromptMessage.set(message.route, message.messageId);
    const ctx: ChatContext = {
      message,
      parsed,
      reply: async (text, options) => {
        await adapter.send(message.route, { text, format: options?.format, kind: "notice" });
      },
      threads: this.threads,
      agents: this.agents,
      workspaces: this.workspaces,
      handover: this.handover,
      commands: COMMANDS,
    };
    await this.pipeline(ctx);
  }

  audit(body: AuditBody, threadId?: string): Promise<void> {
    return this.registry.audit(body, threadId);
  }

  routeInfo(route: string): RouteInfo | undefined {
    const t = this.registry.threadForRoute(route);
    if (!t) return undefined;
    return { thread: t.id, agent: t.agent, profile: t.profile, workspace: t.workspace, session: t.session, host: this.supervisor.state(t.id).host, open: t.open };
  }

  async handleAction(press: ActionPress): Promise<ActionOutcome> {
    if (!this.isAllowed(press.user.id)) {
      this.log.info({ user: press.user.id, route: press.route }, "refused a button press from a user not in access.allow");
      return { ok: false, text: `You are not allowed to answer this. Ask the operator to add ${press.user.id} to access.allow.` };
    }
    if (this.approvals.isApprovalAction(press.actionId)) return this.approvals.answerAction(press.actionId, press.user);
    return { ok: false, text: "This button is no longer active." };
  }

  isAllowed(userId: string): boolean {
    // The web chat is guarded by its own token: whoever holds it is the operator.
    return this.allow.has(userId) || userId.startsWith("web:") || this.allow.has(`${userId.slice(0, userId.indexOf(":"))}:*`);
  }

  private shouldRefuse(userId: string): boolean {
    const now = Date.now();
    const last = this.refusedAt.get(userId);
    const interval = this.options.config.access.refusal_interval;
    if (last !== undefined && now - last < interval) return false;
    // Many strangers must not grow this map without bound: forget refusals older than the interval.
    if (this.refusedAt.size >= REFUSAL_MEMORY_MAX) for (const [id, at] of this.refusedAt) if (now - at >= interval) this.refusedAt.delete(id);
    this.refusedAt.set(userId, now);
    return true;
  }

  targets(thread: ThreadRecord): RouteTarget[] {
    const out: RouteTarget[] = [];
    for (const route of thread.routes) {
      const adapter = this.adapterForRoute(route);
      if (adapter) out.push({ route, adapter });
    }
    return out;
  }

  private streamSettings() {
    const r = this.options.config.rendering;
    return { flushDebounceMs: r.flush_debounce_ms, minEditGapMs: r.min_edit_gap_ms, showThoughts: r.show_thoughts, showTools: r.show_tools };
  }

  private threadsApi(): ThreadsApi {
    const registry = this.registry;
    return {
      forRoute: (route) => registry.threadForRoute(route),
      get: (id) => registry.get(id),
      create: (route, spec) => registry.create(spec, route),
      close: async (id, reason) => {
        await this.supervisor.stopHost(id);
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

  /** Daemon shutdown: in-flight turns are cancelled and reported, hosts stopped, threads stay open. */
  async shutdown(): Promise<void> {
    const running = this.registry.openThreads().filter((t) => this.supervisor.state(t.id).host === "running");
    await Promise.all(running.map((t) => this.supervisor.cancel(t.id)));
    // Give cancelled turns a moment to end cleanly ("⏹ Stopped.") before the processes go.
    await Promise.race([Promise.all(running.map((t) => this.supervisor.drained(t.id))), new Promise((r) => setTimeout(r, SHUTDOWN_DRAIN_MS))]);
    await Promise.all(
      running.map((t) =>
        Promise.all(this.targets(t).map(({ adapter, route }) => adapter.send(route, { text: "⏹ Baton is shutting down; the running turn was cancelled. Send it again after the restart.", kind: "notice" }).catch(() => undefined))),
      ),
    );
    await this.supervisor.stopAll();
  }
}

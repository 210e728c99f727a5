// The thread registry: threads, which routes are attached to which thread, and the agent sessions
// each thread observed. State is only ever changed by applying an event, the same way at runtime
// and at replay, so a restart rebuilds exactly what was there.
import { randomBytes } from "node:crypto";
import { makeEvent, newThreadId, type ThreadEvent, type ThreadEventBody } from "./events.js";
import type { EventLogStore, ReplayReport } from "./store.js";
import { RetentionTally } from "./retention.js";
import type { SubagentAddedBody, SubagentUpdatedBody } from "../core/subagents/records.js";
import type { StoredSchedule, TurnUsage } from "./chat-state.js";
import { applyToThread, createdThread } from "./thread-events.js";
import { AUDIT_RETENTION_MS, COMPACT_MIN_DROPPED, type AuditBody, type NewThread, type RegistryOptions, type ThreadRecord, type ThreadWorktree } from "./records.js";

export * from "./records.js";

export class ThreadRegistry {
  private readonly threads = new Map<string, ThreadRecord>();
  private readonly routeToThread = new Map<string, string>();
  /** Directories registered as workspaces, with their names and who confirmed one outside the roots. */
  private readonly registered = new Map<string, { name?: string; confirmedBy?: string }>();
  /** Schedules made in chat, by id. */
  private readonly scheduleBook = new Map<string, StoredSchedule>();
  /** When each audit event in the log was recorded (ms), oldest first: what expireAudit can drop. */
  private auditTimes: number[] = [];

  private constructor(
    private readonly store: EventLogStore,
    private readonly now: () => Date,
  ) {}

  static async open(store: EventLogStore, options: RegistryOptions = {}): Promise<{ registry: ThreadRegistry; report: ReplayReport }> {
    const registry = new ThreadRegistry(store, options.now ?? (() => new Date()));
    const tally = new RetentionTally();
    const report = await store.replay((event) => {
      tally.count(event);
      registry.apply(event);
    });
    const now = registry.now().getTime();
    const plan = tally.plan(now, [...registry.threads.values()], registry.auditTimes, (id) => registry.scheduleBook.has(id), options);
    // Audit events past audit.keep must go whatever else could: how long they stay is a promise.
    if (plan.dropped >= (options.compactMinDropped ?? COMPACT_MIN_DROPPED) || plan.expiredAudit > 0) {
      report.compacted = await store.compact(plan.keep);
      for (const id of plan.droppedThreads) registry.threads.delete(id);
      const cutoff = now - (options.auditRetentionMs ?? AUDIT_RETENTION_MS);
      registry.auditTimes = registry.auditTimes.filter((at) => at >= cutoff);
    }
    return { registry, report };
  }

  get(id: string): ThreadRecord | undefined {
    return this.threads.get(id);
  }

  threadForRoute(route: string): ThreadRecord | undefined {
    const id = this.routeToThread.get(route);
    return id ? this.threads.get(id) : undefined;
  }

  all(): IterableIterator<ThreadRecord> {
    return this.threads.values();
  }

  openThreads(): ThreadRecord[] {
    return [...this.threads.values()].filter((t) => t.open);
  }

  /** Open threads bound to this agent session (at most one, normally). */
  findOpenBySession(agent: string, session: string): ThreadRecord | undefined {
    for (const t of this.threads.values()) if (t.open && t.agent === agent && t.session === session) return t;
    return undefined;
  }

  async create(spec: NewThread, route?: string): Promise<ThreadRecord> {
    const id = newThreadId();
    const events: Array<[string, ThreadEventBody]> = [[id, { type: "thread_created", ...spec }]];
    if (route) events.push(...this.attachEvents(route, id));
    await this.record(events);
    return this.threads.get(id)!;
  }

  /** Attaches a route to a thread, detaching it from any other thread first. */
  async attach(route: string, threadId: string): Promise<void> {
    await this.record(this.attachEvents(route, threadId));
  }

  async detach(route: string): Promise<void> {
    const current = this.routeToThread.get(route);
    if (current) await this.record([[current, { type: "route_detached", route }]]);
  }

  async observeSession(threadId: string, session: string): Promise<void> {
    if (this.threads.get(threadId)?.session === session) return;
    await this.record([[threadId, { type: "session_observed", session }]]);
  }

  async changeHost(threadId: string, agent: string, profile?: string): Promise<void> {
    await this.record([[threadId, { type: "host_changed", agent, profile }]]);
  }

  async close(threadId: string, reason: string): Promise<void> {
    const t = this.threads.get(threadId);
    if (!t?.open) return;
    await this.record([[threadId, { type: "thread_closed", reason }]]);
  }

  /**
   * Keeps a prompt that waits for its turn. The id is known at once (the caller tags the queued
   * prompt with it); `written` resolves when the event is durable. Appends keep their order, so a
   * promptTaken recorded later always replays after it.
   */
  queuePrompt(threadId: string, prompt: unknown[]): { id: string; written: Promise<void> } {
    const id = `q_${randomBytes(6).toString("hex")}`;
    return { id, written: this.record([[threadId, { type: "prompt_queued", queued: id, prompt }]]) };
  }

  async promptTaken(threadId: string, id: string, why: "started" | "dropped"): Promise<void> {
    await this.record([[threadId, { type: "prompt_taken", queued: id, why }]]);
  }

  async recordContextTransfer(threadId: string, fromRuntime: string, fromSession: string, briefPath: string): Promise<void> {
    await this.record([[threadId, { type: "context_transfer", fromRuntime, fromSession, briefPath }]]);
  }

  /** Records a directory a terminal handover made a workspace, so it stays allowed after a restart. */
  async registerWorkspace(path: string, name?: string, confirmedBy?: string): Promise<void> {
    const known = this.registered.get(path);
    if (known && (name === undefined || known.name === name) && (confirmedBy === undefined || known.confirmedBy === confirmedBy)) return;
    await this.record([["-", { type: "workspace_registered", path, name, confirmed_by: confirmedBy }]]);
  }

  registeredWorkspaces(): Array<{ path: string; name?: string; confirmedBy?: string }> {
    return [...this.registered].map(([path, { name, confirmedBy }]) => (confirmedBy ? { path, name, confirmedBy } : { path, name }));
  }

  /** Adds subagents (state queued) to a thread's multi-agent turn `run`. */
  async addSubagents(threadId: string, subagents: Array<Omit<SubagentAddedBody, "type">>): Promise<void> {
    await this.record(subagents.map((s) => [threadId, { type: "subagent_added", ...s }]));
  }

  async updateSubagent(threadId: string, update: Omit<SubagentUpdatedBody, "type">): Promise<void> {
    await this.record([[threadId, { type: "subagent_updated", ...update }]]);
  }

  async recordWorktree(threadId: string, tree: Omit<ThreadWorktree, "removed" | "branchDeleted">): Promise<void> {
    const { path, branch, base, baseBranch, repository, cwd, topic } = tree;
    await this.record([[threadId, { type: "worktree_created", path, branch, base, base_branch: baseBranch, repository, cwd, topic }]]);
  }

  async worktreeRemoved(threadId: string, branchDeleted: boolean): Promise<void> {
    await this.record([[threadId, { type: "worktree_removed", branch_deleted: branchDeleted }]]);
  }

  async changeSettings(threadId: string, settings: { mode?: string; model?: string }): Promise<void> {
    await this.record([[threadId, { type: "settings_changed", ...settings }]]);
  }

  async recordUsage(threadId: string, usage: TurnUsage): Promise<void> {
    await this.record([[threadId, { type: "usage_recorded", usage, session: this.threads.get(threadId)?.session }]]);
  }

  schedules(): StoredSchedule[] {
    return [...this.scheduleBook.values()];
  }

  async addSchedule(schedule: StoredSchedule): Promise<void> {
    await this.record([["-", { type: "schedule_added", schedule }]]);
  }

  async removeSchedule(scheduleId: string): Promise<void> {
    if (this.scheduleBook.has(scheduleId)) await this.record([["-", { type: "schedule_removed", scheduleId }]]);
  }

  /** Audit events (src/core/audit.ts) go into the same durable log, under the thread they concern or "-". */
  async audit(body: AuditBody, threadId = "-"): Promise<void> {
    await this.record([[threadId, { type: "audit", ...body }]]);
  }

  /**
   * Drops the audit events older than `keepMs` (audit.keep) from the log, the rest untouched (a
   * running daemon's compaction; the one at start also drops old closed threads). Returns how many went.
   */
  async expireAudit(keepMs: number): Promise<number> {
    const cutoff = this.now().getTime() - keepMs;
    if (!this.auditTimes.some((at) => !(at >= cutoff))) return 0;
    const { dropped } = await this.store.compact((e) => e.type !== "audit" || Date.parse(e.at) >= cutoff);
    this.auditTimes = this.auditTimes.filter((at) => at >= cutoff);
    return dropped;
  }

  private attachEvents(route: string, threadId: string): Array<[string, ThreadEventBody]> {
    const events: Array<[string, ThreadEventBody]> = [];
    const current = this.routeToThread.get(route);
    if (current === threadId) return events;
    if (current) events.push([current, { type: "route_detached", route }]);
    events.push([threadId, { type: "route_attached", route }]);
    return events;
  }

  private async record(bodies: Array<[string, ThreadEventBody]>): Promise<void> {
    if (bodies.length === 0) return;
    const now = this.now();
    const events = bodies.map(([thread, body]) => makeEvent(thread, body, now));
    await this.store.append(events);
    for (const e of events) this.apply(e);
  }

  private apply(event: ThreadEvent): void {
    switch (event.type) {
      case "audit":
        this.auditTimes.push(Date.parse(event.at));
        return;
      case "workspace_registered": {
        const known = this.registered.get(event.path);
        this.registered.set(event.path, { name: event.name ?? known?.name, confirmedBy: event.confirmed_by ?? known?.confirmedBy });
        return;
      }
      case "schedule_added":
        this.scheduleBook.set(event.schedule.id, event.schedule);
        return;
      case "schedule_removed":
        this.scheduleBook.delete(event.scheduleId);
        return;
      case "thread_created":
        // Logs written before workspace_registered existed: a pickup's directory was registered then.
        if (event.origin === "pickup" && !this.registered.has(event.workspace)) this.registered.set(event.workspace, {});
        this.threads.set(event.thread, createdThread(event));
        return;
    }
    const t = this.threads.get(event.thread);
    if (!t) return; // events of a thread whose creation was lost
    t.lastEventAt = event.at;
    this.applyToRoutes(t, event);
    applyToThread(t, event);
  }

  /** Which route is attached to which thread: the index kept beside the threads' own route sets. */
  private applyToRoutes(t: ThreadRecord, event: ThreadEvent): void {
    switch (event.type) {
      case "route_attached": {
        const previous = this.routeToThread.get(event.route);
        if (previous && previous !== t.id) this.threads.get(previous)?.routes.delete(event.route);
        this.routeToThread.set(event.route, t.id);
        t.routes.add(event.route);
        break;
      }
      case "route_detached":
        t.routes.delete(event.route);
        if (this.routeToThread.get(event.route) === t.id) this.routeToThread.delete(event.route);
        break;
      case "thread_closed":
        for (const route of t.routes) if (this.routeToThread.get(route) === t.id) this.routeToThread.delete(route);
        t.routes.clear();
        break;
    }
  }
}

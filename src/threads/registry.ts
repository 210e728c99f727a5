// The thread registry: threads, which routes are attached to which thread, and the agent sessions
// each thread observed. State is only ever changed by applying an event, the same way at runtime
// and at replay, so a restart rebuilds exactly what was there.
import { makeEvent, newThreadId, type ThreadEvent, type ThreadEventBody } from "./events.js";
import type { EventLogStore, ReplayReport } from "./store.js";
import { applySubagentEvent, type SubagentAddedBody, type SubagentRecord, type SubagentUpdatedBody } from "./subagents.js";

export type AuditBody = Omit<Extract<ThreadEventBody, { type: "audit" }>, "type">;

export interface ThreadRecord {
  id: string;
  workspace: string;
  agent: string;
  profile?: string;
  /** Current agent session id, once the agent created or resumed one. */
  session?: string;
  /** Every session id this thread has seen, oldest first. */
  sessions: string[];
  open: boolean;
  routes: Set<string>;
  createdAt: string;
  closedAt?: string;
  closeReason?: string;
  lastEventAt: string;
  contextTransfers: Array<{ fromRuntime: string; fromSession: string; briefPath: string }>;
  /** Subagents of its current multi-agent turn, and unfinished ones of earlier turns. */
  subagents: SubagentRecord[];
}

export interface NewThread {
  workspace: string;
  agent: string;
  profile?: string;
  session?: string;
  origin?: string;
}

export class ThreadRegistry {
  private readonly threads = new Map<string, ThreadRecord>();
  private readonly routeToThread = new Map<string, string>();

  private constructor(private readonly store: EventLogStore, private readonly now: () => Date) {}

  static async open(store: EventLogStore, now: () => Date = () => new Date()): Promise<{ registry: ThreadRegistry; report: ReplayReport }> {
    const registry = new ThreadRegistry(store, now);
    const report = await store.replay((event) => registry.apply(event));
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
    if (!t || !t.open) return;
    await this.record([[threadId, { type: "thread_closed", reason }]]);
  }

  async recordContextTransfer(threadId: string, fromRuntime: string, fromSession: string, briefPath: string): Promise<void> {
    await this.record([[threadId, { type: "context_transfer", fromRuntime, fromSession, briefPath }]]);
  }

  /** Adds subagents (state queued) to a thread's multi-agent turn `run`. */
  async addSubagents(threadId: string, subagents: Array<Omit<SubagentAddedBody, "type">>): Promise<void> {
    await this.record(subagents.map((s) => [threadId, { type: "subagent_added", ...s }]));
  }

  async updateSubagent(threadId: string, update: Omit<SubagentUpdatedBody, "type">): Promise<void> {
    await this.record([[threadId, { type: "subagent_updated", ...update }]]);
  }

  /** Audit events (pickups, refusals) go into the same durable log, under the thread they concern or "-". */
  async audit(body: AuditBody, threadId = "-"): Promise<void> {
    await this.record([[threadId, { type: "audit", ...body }]]);
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
    if (event.type === "thread_created") {
      this.threads.set(event.thread, {
        id: event.thread,
        workspace: event.workspace,
        agent: event.agent,
        profile: event.profile,
        session: event.session,
        sessions: event.session ? [event.session] : [],
        open: true,
        routes: new Set(),
        createdAt: event.at,
        lastEventAt: event.at,
        contextTransfers: [],
        subagents: [],
      });
      return;
    }
    const t = this.threads.get(event.thread);
    if (!t) return; // audit events under "-", or events of a thread whose creation was lost
    t.lastEventAt = event.at;
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
      case "session_observed":
        t.session = event.session;
        if (!t.sessions.includes(event.session)) t.sessions.push(event.session);
        break;
      case "host_changed":
        t.agent = event.agent;
        t.profile = event.profile;
        break;
      case "thread_closed":
        t.open = false;
        t.closedAt = event.at;
        t.closeReason = event.reason;
        for (const route of t.routes) if (this.routeToThread.get(route) === t.id) this.routeToThread.delete(route);
        t.routes.clear();
        break;
      case "context_transfer":
        t.contextTransfers.push({ fromRuntime: event.fromRuntime, fromSession: event.fromSession, briefPath: event.briefPath });
        break;
      case "subagent_added":
      case "subagent_updated":
        t.subagents = applySubagentEvent(t.subagents, event, event.at);
        break;
      case "audit":
        break;
    }
  }
}

// Starting a thread's host: one start under way per thread (a turn and a start outside a turn,
// /mode, share it), the launch checks paid only by a start, a few starts at a time
// (start-slots.ts), the spare taken when it was started for the same launch, then the thread's
// session opened; /stop or a shutdown during a start ends it.
import type { Logger } from "../kernel/log.js";
import type { ThreadRecord } from "../threads/registry.js";
import { AgentHost, cannotReopenNote, HostStoppedError, type OpenedSession } from "./host.js";
import type { LiveHosts } from "./live-hosts.js";
import { liveSink } from "./live-sink.js";
import type { SlotLease, Slots } from "./slots.js";
import { startSlots, waitForStartSlot } from "./start-slots.js";
import type { SpareHost } from "./spare.js";
import type { HostLaunch, HostRequest, Live, McpAccess, SupervisorEvent, SupervisorOptions } from "./supervisor-types.js";

export interface HostStartsDeps {
  live: LiveHosts;
  spare: SpareHost;
  log: Logger;
  report(event: SupervisorEvent): void | Promise<void>;
  options(): SupervisorOptions;
  /** Makes room for one more process within agents.max_live_hosts; false when every host is busy. */
  makeRoom(): Promise<boolean>;
}

export class HostStarts {
  /** A few agent starts at a time. */
  readonly slots: Slots;
  /** Threads whose host is starting (or waiting for a start slot); aborting ends the start. */
  private readonly starting = new Map<string, AbortController>();
  /** The start under way per thread: a turn and a start outside a turn (/mode) share it. */
  private readonly underWay = new Map<string, Promise<Live>>();
  /** Per agent (thread.agent): whether its last host could resume a session. */
  private readonly resumable = new Map<string, boolean>();

  constructor(private readonly deps: HostStartsDeps) {
    this.slots = startSlots(deps.log);
  }

  /** The thread's live host for its agent and profile, started now when none runs (or another profile's does). */
  async ensure(request: HostRequest, notice: (text: string) => void): Promise<Live> {
    const { thread } = request;
    await this.underWay.get(thread.id)?.catch(() => undefined);
    const profileKey = `${thread.agent}+${thread.profile ?? ""}`;
    const existing = this.deps.live.get(thread.id);
    if (existing?.host.alive && existing.profileKey === profileKey) return existing;
    const started = this.startFor(request, notice, profileKey, existing);
    this.underWay.set(thread.id, started);
    try {
      return await started;
    } finally {
      if (this.underWay.get(thread.id) === started) this.underWay.delete(thread.id);
    }
  }

  /** True while the thread's host starts (or waits for a start slot). */
  has(threadId: string): boolean {
    return this.starting.has(threadId);
  }

  get count(): number {
    return this.starting.size;
  }

  /** Ends the thread's start under way; false when none is. */
  abort(threadId: string): boolean {
    const start = this.starting.get(threadId);
    start?.abort();
    return !!start;
  }

  abortAll(): void {
    for (const start of this.starting.values()) start.abort();
  }

  /** Whether the agent's last host could resume a session (undefined: none has started yet). */
  couldResume(agent: string): boolean | undefined {
    return this.resumable.get(agent);
  }

  private async startFor({ thread, launch }: HostRequest, notice: (text: string) => void, profileKey: string, existing: Live | undefined): Promise<Live> {
    const start = new AbortController();
    this.starting.set(thread.id, start);
    try {
      // Only a start pays for the launch checks (over SSH they are round trips to the machine).
      const ready = await launch();
      if (existing) await this.deps.live.stop(thread.id);
      // A few starts at a time (start-slots.ts).
      const slot = await waitForStartSlot(this.slots, start.signal, (text) => void this.deps.report({ type: "notice", thread, text }));
      try {
        return await this.start(thread, notice, ready, profileKey, start.signal, slot);
      } finally {
        slot.release();
      }
    } finally {
      if (this.starting.get(thread.id) === start) this.starting.delete(thread.id);
    }
  }

  private async start(thread: ThreadRecord, notice: (text: string) => void, launch: HostLaunch, profileKey: string, abort: AbortSignal, slot: SlotLease): Promise<Live> {
    const { spec } = launch;
    const { live: hosts, spare: spares } = this.deps;
    const live: Live = { host: undefined as unknown as AgentHost, profileKey, starting: true };
    const sink = liveSink(live, thread, {
      log: this.deps.log,
      isCurrent: () => hosts.get(thread.id) === live,
      forget: () => hosts.delete(thread.id),
      gone: () => this.hostGone(thread.id, live),
    });
    // The spare becomes this host when it was started for the same launch: the count of processes stays the same.
    // A thread whose agent cannot open its earlier session starts over in a new one: the spare's, made ahead, serves it.
    const spare = await spares.take(spec, sink, { newSession: (host) => !thread.session || !host.canResume });
    if (!spare) await this.evictIfFull();
    live.host = spare?.host ?? new AgentHost({ ...spec, startTimeouts: this.deps.options().startTimeouts, sink });
    hosts.set(thread.id, live);
    live.host.settings.onAgentChange = (kind, id) => void this.deps.report({ type: "setting-changed", thread, kind, id });
    // /stop (or shutdown) during the start stops the process; the step under way then fails.
    const onAbort = () => void live.host.stop();
    abort.addEventListener("abort", onAbort, { once: true });
    if (abort.aborted) onAbort();
    try {
      if (!spare) await live.host.start();
      slot.progress();
      const opened = await this.openSession(thread, live, launch, spare?.session, spec.kind.displayName);
      const more = await launch.sessionOpened(opened, live.host);
      live.carry = more?.carry;
      const note = more?.note ?? opened.note;
      if (note) notice(`ℹ️ ${note}`);
      void this.deps.report({ type: "host-started", thread });
      this.deps.log.info(
        { thread: thread.id, agent: spec.kind.id, session: opened.sessionId, how: opened.how, pid: live.host.pid, spare: !!spare, session_ahead: !!spare?.session, cpu_class: live.host.cpuClass },
        spare ? "agent host started on the spare process" : "agent host started",
      );
      this.resumable.set(thread.agent, live.host.canResume);
      spares.hostStarted(spec);
      live.starting = false;
      return live;
    } catch (error) {
      if (hosts.get(thread.id) === live) hosts.delete(thread.id);
      await live.host.stop();
      throw abort.aborted ? new HostStoppedError() : error;
    } finally {
      abort.removeEventListener("abort", onAbort);
    }
  }

  /**
   * The thread's session on its new host: the spare's, made ahead (its MCP servers now act for this
   * thread; for a thread that had a session, its agent cannot open that one again), or opened now.
   */
  private async openSession(thread: ThreadRecord, live: Live, launch: HostLaunch, ahead: { id: string; mcp?: McpAccess } | undefined, agentName: string): Promise<OpenedSession> {
    if (ahead) {
      ahead.mcp?.bind?.(thread.id);
      live.releaseMcp = ahead.mcp?.release;
      return thread.session ? { sessionId: ahead.id, how: "new-after-failed-resume", note: cannotReopenNote(agentName) } : { sessionId: ahead.id, how: "new" };
    }
    const mcp = await launch.mcpServers?.({ http: live.host.supportsMcpHttp });
    live.releaseMcp = mcp?.release;
    return live.host.openSession(thread.session, mcp?.servers);
  }

  /** The host process is gone: its MCP token dies with it, and its slot is free. */
  private hostGone(threadId: string, live: Live): void {
    live.releaseMcp?.();
    live.releaseMcp = undefined;
    void this.deps.report({ type: "capacity-freed" });
    void this.deps.report({ type: "host-state", threadId });
  }

  /** Past the limit, the least recently used idle host is stopped first. A chat's turn never waits for room. */
  private async evictIfFull(): Promise<void> {
    if (!(await this.deps.makeRoom())) this.deps.log.warn({ live: this.deps.live.size }, "all agent hosts are busy; starting one more than agents.max_live_hosts");
  }
}

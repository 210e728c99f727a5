// The agent supervisor: at most one host process per thread, turns serialised per thread (FIFO),
// idle hosts shut down and least-recently-used idle hosts evicted past the limit (the spare of
// spare.ts first). A crash is reported, never respawned mid-turn; the next prompt starts a fresh
// process (or takes the spare) and resumes. It is handed each turn's launch and output with its
// prompt and reports what happens to hosts and turns (SupervisorEvent); it never asks the core.
import { AgentError } from "../kernel/errors.js";
import type { ThreadRecord } from "../threads/registry.js";
import { AgentHost, cannotReopenNote, HostStoppedError, type OpenedSession } from "./host.js";
import { liveSink } from "./live-sink.js";
import type { SlotLease, Slots } from "./slots.js";
import { startSlots, waitForStartSlot } from "./start-slots.js";
import { SpareHost, type SpareLaunch, type SpareState } from "./spare.js";
import { endFailedTurn } from "./turn-errors.js";
import { TurnQueues } from "./turn-queues.js";
import type { HostLaunch, HostRequest, HostState, Live, McpAccess, SupervisorDeps, SupervisorOptions, TurnOutput, TurnRequest } from "./supervisor-types.js";

export type { HostLaunch, HostRequest, HostState, LaunchSpec, McpAccess, SupervisorDeps, SupervisorEvent, SupervisorOptions, TurnOutput, TurnRequest, TurnStart } from "./supervisor-types.js";

export class Supervisor {
  /** Live hosts by thread id, in least-recently-used order (Map iteration order). */
  private readonly live = new Map<string, Live>();
  private readonly turns = new TurnQueues(
    (request) => this.runTurn(request),
    (threadId, id, why) => void this.deps.report({ type: "prompt-taken", threadId, id, why }),
  );
  private readonly startSlots: Slots;
  /** Threads whose host is starting (or waiting for a start slot); aborting ends the start. */
  private readonly starting = new Map<string, AbortController>();
  /** The start under way per thread: a turn and a start outside a turn (/mode) share it. */
  private readonly startsUnderWay = new Map<string, Promise<Live>>();

  /** Per agent (thread.agent): whether its last host could resume a session (prewarm starts only those that can). */
  private readonly resumable = new Map<string, boolean>();

  /** One agent process started ahead for the next new host (spare.ts). */
  private readonly spare: SpareHost;
  /** The launch a new thread gets by default (given by prepareSpare). */
  private spareLaunch?: () => Promise<SpareLaunch | undefined>;

  constructor(
    private readonly deps: SupervisorDeps,
    private options: SupervisorOptions,
  ) {
    this.startSlots = startSlots(deps.log);
    this.spare = new SpareHost({
      launch: async () => this.spareLaunch?.(),
      room: () => this.live.size + this.spare.count + deps.otherLiveHosts() < this.options.maxLiveHosts,
      busy: () => this.starting.size > 0,
      options: () => this.options,
      log: deps.log,
    });
  }

  /** Queues a prompt; returns how many turns are ahead of it (0 = it runs now, unless paused). */
  submit(request: TurnRequest): number {
    return this.turns.submit(request);
  }

  /** True when a prompt submitted now would wait (a turn runs or is queued, or the supervisor is paused). */
  wouldWait(threadId: string): boolean {
    return this.turns.wouldWait(threadId);
  }

  get paused(): boolean {
    return this.turns.paused;
  }

  /** Starts no new turn from now on (a daemon shutting down); resolves once no turn is running. Queued prompts stay queued. */
  pause(): Promise<void> {
    return this.turns.pause();
  }

  /** Limits changed by a config reload; they apply from the next host start or idle period. */
  setLimits(options: SupervisorOptions): void {
    this.options = options;
  }

  /** A config reload was applied whole (agents, workspaces): a spare that no longer fits the default launch is made again. */
  reloaded(): void {
    void this.spare.reset();
  }

  /** Idle time after start-up: an agent process (and session) is started ahead for the first new thread, from `launch` (undefined when the config wants none). */
  prepareSpare(launch: () => Promise<SpareLaunch | undefined>): void {
    this.spareLaunch = launch;
    this.spare.prepare();
  }

  /**
   * A prompt is likely on its way (someone types): the thread's host starts now, resuming its
   * session, where none runs or starts and its agent can resume (as far as its last host said);
   * otherwise the spare is made ready. An idle host's idle time starts again. A failure here is only logged: the prompt, when it comes,
   * starts the host again and reports what goes wrong.
   */
  prewarm(request: HostRequest): void {
    const { thread } = request;
    const live = this.live.get(thread.id);
    // A live, idle host is kept from idling out while the person writes.
    if (live && !live.turn && !live.starting) this.touch(thread.id, live);
    if (live || this.starting.has(thread.id) || this.turns.wouldWait(thread.id)) return;
    if (!thread.session || this.resumable.get(thread.agent) === false) {
      this.warmSpare();
      return;
    }
    this.deps.log.info({ thread: thread.id, agent: thread.agent }, "someone is typing: starting the thread's agent ahead of the message");
    this.open(request).catch((error: unknown) => this.deps.log.info({ thread: thread.id, err: error }, "could not start the thread's agent ahead of the message; the message will try again"));
  }

  /** A new thread is likely (someone types where none is): a spare is made now if there is none. */
  warmSpare(): void {
    this.spare.schedule(0);
  }

  /** The spare agent process, while one is starting or ready. */
  spareState(): SpareState | undefined {
    return this.spare.state();
  }

  /** Resolves once the thread has no running or queued turn. */
  drained(threadId: string): Promise<void> {
    return this.turns.drained(threadId);
  }

  state(threadId: string): { host: HostState; queued: number; approvals: number } {
    const live = this.live.get(threadId);
    return {
      host: this.starting.has(threadId) ? "starting" : !live ? "stopped" : live.turn ? "running" : "idle",
      queued: this.turns.waiting(threadId),
      approvals: live?.turn?.pendingApprovals() ?? 0,
    };
  }

  /** The thread's live host with its session open, if one runs. */
  host(threadId: string): AgentHost | undefined {
    const live = this.live.get(threadId);
    return live?.host.alive && !live.starting ? live.host : undefined;
  }

  /** The thread's host with its session open, started now when none runs (to change a setting before the first prompt). */
  async open(request: HostRequest): Promise<AgentHost> {
    const { thread } = request;
    if (!thread.open) throw new AgentError("This thread is closed.");
    const live = await this.ensureHost(request, (text) => void this.deps.report({ type: "notice", thread, text }));
    if (!live.turn) this.touch(thread.id, live);
    return live.host;
  }

  liveCount(): number {
    return this.live.size;
  }

  /** Waits for one of the few agent starts allowed at once; call the result when the start is over. */
  async acquireStartSlot(signal: AbortSignal = new AbortController().signal): Promise<() => void> {
    return (await this.startSlots.acquire(signal)).release;
  }

  /**
   * Makes room for one more agent process within max_live_hosts, stopping least recently used idle
   * hosts; false when every host is busy.
   */
  async makeRoom(): Promise<boolean> {
    while (this.live.size + this.spare.count + this.deps.otherLiveHosts() >= this.options.maxLiveHosts) {
      // The spare goes first: no thread is using it.
      if (!(await this.spare.stop("its place is needed within agents.max_live_hosts")) && !(await this.stopIdleHost())) return false;
    }
    return true;
  }

  /** Cancels the running turn at once (ACP session/cancel), or ends a start; pending approvals answer "cancelled". */
  async cancel(threadId: string): Promise<boolean> {
    const starting = this.starting.get(threadId);
    if (starting) {
      starting.abort();
      return true;
    }
    const live = this.live.get(threadId);
    if (!live?.turn) return false;
    live.host.cancel();
    live.turn.cancelApprovals();
    return true;
  }

  /** Stops the thread's host (close, profile switch); queued prompts are dropped. */
  async stopHost(threadId: string): Promise<void> {
    this.turns.drop(threadId);
    await this.stopProcess(threadId);
  }

  /** Stops the thread's process but keeps its queued prompts (a replaced or dead host). */
  private async stopProcess(threadId: string): Promise<void> {
    const live = this.live.get(threadId);
    if (!live) return;
    if (live.turn) {
      live.host.cancel();
      live.turn.cancelApprovals();
    }
    clearTimeout(live.idleTimer);
    this.live.delete(threadId);
    await live.host.stop();
  }

  /** Daemon shutdown: every process stops; queued prompts are kept by whoever persisted them. */
  async stopAll(): Promise<void> {
    for (const start of this.starting.values()) start.abort();
    await Promise.all([this.spare.close(), ...[...this.live.keys()].map((id) => this.stopProcess(id))]);
  }

  private async runTurn({ threadId, prompt, start }: TurnRequest): Promise<void> {
    const request = start();
    if (!request?.thread.open) return;
    const { thread, sink: turn } = request;
    let live: Live | undefined;
    try {
      live = await this.ensureHost(request, (text) => turn.notice(text));
      live.turn = turn;
      clearTimeout(live.idleTimer);
      const blocks = live.carry ? [...live.carry, ...prompt] : prompt;
      live.carry = undefined;
      const stopReason = await live.host.prompt(blocks);
      await turn.finish({ stopReason, usage: live.host.lastPromptUsage });
    } catch (error) {
      await this.handleTurnError(thread, turn, error);
    } finally {
      if (live && this.live.get(threadId) === live) {
        live.turn = undefined;
        // It may have exited while the turn was ending (its exit then left it in place for the turn).
        if (live.host.alive) this.touch(threadId, live);
        else this.live.delete(threadId);
      }
    }
  }

  private handleTurnError(thread: ThreadRecord, turn: TurnOutput, error: unknown): Promise<void> {
    return endFailedTurn({ report: (event) => this.deps.report(event), log: this.deps.log, forget: (id) => this.live.delete(id), stopHost: (id) => this.stopHost(id) }, thread, turn, error);
  }

  private async ensureHost(request: HostRequest, notice: (text: string) => void): Promise<Live> {
    const { thread } = request;
    await this.startsUnderWay.get(thread.id)?.catch(() => undefined);
    const profileKey = `${thread.agent}+${thread.profile ?? ""}`;
    const existing = this.live.get(thread.id);
    if (existing?.host.alive && existing.profileKey === profileKey) return existing;
    const started = this.startHostFor(request, notice, profileKey, existing);
    this.startsUnderWay.set(thread.id, started);
    try {
      return await started;
    } finally {
      if (this.startsUnderWay.get(thread.id) === started) this.startsUnderWay.delete(thread.id);
    }
  }

  private async startHostFor({ thread, launch }: HostRequest, notice: (text: string) => void, profileKey: string, existing: Live | undefined): Promise<Live> {
    const start = new AbortController();
    this.starting.set(thread.id, start);
    try {
      // Only a start pays for the launch checks (over SSH they are round trips to the machine).
      const ready = await launch();
      if (existing) await this.stopProcess(thread.id);
      // A few starts at a time (start-slots.ts).
      const slot = await waitForStartSlot(this.startSlots, start.signal, (text) => void this.deps.report({ type: "notice", thread, text }));
      try {
        return await this.startHost(thread, notice, ready, profileKey, start.signal, slot);
      } finally {
        slot.release();
      }
    } finally {
      if (this.starting.get(thread.id) === start) this.starting.delete(thread.id);
    }
  }

  private async startHost(thread: ThreadRecord, notice: (text: string) => void, launch: HostLaunch, profileKey: string, abort: AbortSignal, slot: SlotLease): Promise<Live> {
    const { spec } = launch;
    const live: Live = { host: undefined as unknown as AgentHost, profileKey, starting: true };
    const sink = liveSink(live, thread, {
      log: this.deps.log,
      isCurrent: () => this.live.get(thread.id) === live,
      forget: () => this.live.delete(thread.id),
      gone: () => this.hostGone(thread.id, live),
    });
    // The spare becomes this host when it was started for the same launch: the count of processes stays the same.
    // A thread whose agent cannot open its earlier session starts over in a new one: the spare's, made ahead, serves it.
    const spare = await this.spare.take(spec, sink, { newSession: (host) => !thread.session || !host.canResume });
    if (!spare) await this.evictIfFull();
    live.host = spare?.host ?? new AgentHost({ ...spec, startTimeouts: this.options.startTimeouts, sink });
    this.live.set(thread.id, live);
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
      this.spare.hostStarted(spec);
      live.starting = false;
      return live;
    } catch (error) {
      if (this.live.get(thread.id) === live) this.live.delete(thread.id);
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
    if (!(await this.makeRoom())) this.deps.log.warn({ live: this.live.size }, "all agent hosts are busy; starting one more than agents.max_live_hosts");
  }

  private async stopIdleHost(): Promise<boolean> {
    const idle = [...this.live.entries()].find(([, l]) => !l.turn && !l.starting);
    if (!idle) return false;
    this.deps.log.info({ thread: idle[0] }, "stopping least recently used idle agent host");
    await this.stopProcess(idle[0]);
    return true;
  }

  private touch(threadId: string, live: Live): void {
    // Re-insert to mark it most recently used.
    this.live.delete(threadId);
    this.live.set(threadId, live);
    clearTimeout(live.idleTimer);
    void this.deps.report({ type: "capacity-freed" });
    void this.deps.report({ type: "host-state", threadId });
    live.idleTimer = setTimeout(() => {
      if (live.turn || this.turns.waiting(threadId) > 0) return;
      this.deps.log.info({ thread: threadId }, "idle agent host shut down");
      void this.stopHost(threadId);
    }, this.options.idleShutdownMs);
    live.idleTimer.unref();
  }
}

// The agent supervisor: at most one host process per thread, turns serialised per thread (FIFO),
// idle hosts shut down and least-recently-used idle hosts evicted past the limit (the spare of
// spare.ts first). A crash is reported, never respawned mid-turn; the next prompt starts a fresh
// process (or takes the spare) and resumes. It is handed each turn's launch and output with its
// prompt and reports what happens to hosts and turns (SupervisorEvent); it never asks the core.
// The live hosts and their idle policy are live-hosts.ts; how a host starts is host-starts.ts.
import { monotonicMs } from "../kernel/clock.js";
import { AgentError } from "../kernel/errors.js";
import type { ThreadRecord } from "../threads/registry.js";
import type { AgentHost } from "./host.js";
import { HostStarts } from "./host-starts.js";
import { LiveHosts } from "./live-hosts.js";
import { SpareHost, type SpareLaunch, type SpareState } from "./spare.js";
import { endFailedTurn } from "./turn-errors.js";
import { TurnQueues } from "./turn-queues.js";
import type { HostRequest, HostState, Live, SupervisorDeps, SupervisorEvent, SupervisorOptions, TurnOutput, TurnRequest } from "./supervisor-types.js";

export type { HostLaunch, HostRequest, HostState, LaunchSpec, McpAccess, SupervisorDeps, SupervisorEvent, SupervisorOptions, TurnOutput, TurnRequest, TurnStart } from "./supervisor-types.js";

/**
 * How long one typing signal keeps the thread's agent from idling out, however short
 * agents.idle_shutdown is: Discord shows a person as typing for about 10 s after each signal (its
 * client sends another while they keep typing), the web chat's page signals every 5 s, and a
 * Matrix client re-announces m.typing while it lasts. So the agent started ahead of a message is
 * still there when the message comes.
 */
const TYPING_HOLD_MS = 10_000;

export class Supervisor {
  private readonly turns = new TurnQueues(
    (request) => this.runTurn(request),
    (threadId, id, why) => void this.deps.report({ type: "prompt-taken", threadId, id, why }),
  );
  private readonly live: LiveHosts;
  private readonly starts: HostStarts;
  /** One agent process started ahead for the next new host (spare.ts). */
  private readonly spare: SpareHost;
  /** The launch a new thread gets by default (given by prepareSpare). */
  private spareLaunch?: () => Promise<SpareLaunch | undefined>;

  constructor(
    private readonly deps: SupervisorDeps,
    private options: SupervisorOptions,
  ) {
    const { log } = deps;
    const report = (event: SupervisorEvent) => deps.report(event);
    this.live = new LiveHosts({ log, report, turns: this.turns, idleShutdownMs: () => this.options.idleShutdownMs });
    this.spare = new SpareHost({
      launch: async () => this.spareLaunch?.(),
      room: () => this.live.size + this.spare.count + deps.otherLiveHosts() < this.options.maxLiveHosts,
      busy: () => this.starts.count > 0,
      options: () => this.options,
      log,
    });
    this.starts = new HostStarts({ live: this.live, spare: this.spare, log, report, options: () => this.options, makeRoom: () => this.makeRoom() });
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
    const heldUntil = monotonicMs() + TYPING_HOLD_MS;
    // A live, idle host is kept from idling out while the person writes.
    if (live && !live.turn && !live.starting) this.live.touch(thread.id, live, heldUntil);
    if (live || this.starts.has(thread.id) || this.turns.wouldWait(thread.id)) return;
    if (!thread.session || this.starts.couldResume(thread.agent) === false) {
      this.warmSpare();
      return;
    }
    this.deps.log.info({ thread: thread.id, agent: thread.agent }, "someone is typing: starting the thread's agent ahead of the message");
    this.openHeld(request, heldUntil).catch((error: unknown) =>
      this.deps.log.info({ thread: thread.id, err: error }, "could not start the thread's agent ahead of the message; the message will try again"),
    );
  }

  /** A new thread is likely (someone types where none is): a spare is made now if there is none, and kept while they type. */
  warmSpare(): void {
    this.spare.hold(monotonicMs() + TYPING_HOLD_MS);
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
      host: this.starts.has(threadId) ? "starting" : !live ? "stopped" : live.turn ? "running" : "idle",
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
    return this.openHeld(request, 0);
  }

  /** open(), the host kept from idling out until `heldUntil` (monotonic ms) at least. */
  private async openHeld(request: HostRequest, heldUntil: number): Promise<AgentHost> {
    const { thread } = request;
    if (!thread.open) throw new AgentError("This thread is closed.");
    const live = await this.starts.ensure(request, (text) => void this.deps.report({ type: "notice", thread, text }));
    if (!live.turn) this.live.touch(thread.id, live, heldUntil);
    return live.host;
  }

  liveCount(): number {
    return this.live.size;
  }

  /** Waits for one of the few agent starts allowed at once; call the result when the start is over. */
  async acquireStartSlot(signal: AbortSignal = new AbortController().signal): Promise<() => void> {
    return (await this.starts.slots.acquire(signal)).release;
  }

  /**
   * Makes room for one more agent process within max_live_hosts, stopping least recently used idle
   * hosts; false when every host is busy.
   */
  async makeRoom(): Promise<boolean> {
    while (this.live.size + this.spare.count + this.deps.otherLiveHosts() >= this.options.maxLiveHosts) {
      // The spare goes first: no thread is using it.
      if (!(await this.spare.stop("its place is needed within agents.max_live_hosts")) && !(await this.live.stopLeastRecentlyUsedIdle())) return false;
    }
    return true;
  }

  /** Cancels the running turn at once (ACP session/cancel), or ends a start; pending approvals answer "cancelled". */
  async cancel(threadId: string): Promise<boolean> {
    if (this.starts.abort(threadId)) return true;
    const live = this.live.get(threadId);
    if (!live?.turn) return false;
    live.host.cancel();
    live.turn.cancelApprovals();
    return true;
  }

  /** Stops the thread's host (close, profile switch); queued prompts are dropped. */
  async stopHost(threadId: string): Promise<void> {
    this.turns.drop(threadId);
    await this.live.stop(threadId);
  }

  /** Daemon shutdown: every process stops; queued prompts are kept by whoever persisted them. */
  async stopAll(): Promise<void> {
    this.starts.abortAll();
    await Promise.all([this.spare.close(), ...this.live.threadIds().map((id) => this.live.stop(id))]);
  }

  private async runTurn({ threadId, prompt, start }: TurnRequest): Promise<void> {
    const request = start();
    if (!request?.thread.open) return;
    const { thread, sink: turn } = request;
    let live: Live | undefined;
    try {
      live = await this.starts.ensure(request, (text) => turn.notice(text));
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
        if (live.host.alive) this.live.touch(threadId, live);
        else this.live.delete(threadId);
      }
    }
  }

  private handleTurnError(thread: ThreadRecord, turn: TurnOutput, error: unknown): Promise<void> {
    return endFailedTurn({ report: (event) => this.deps.report(event), log: this.deps.log, forget: (id) => this.live.delete(id), stopHost: (id) => this.stopHost(id) }, thread, turn, error);
  }
}

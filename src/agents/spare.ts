// The spare: one agent process started ahead, in idle time, for the next host to take over, so a
// new thread's first answer does not wait for the agent CLI to boot (Node, its SDK, ACP
// initialize) nor for its session/new (seconds for some agents: Claude Code starts a process and
// its MCP servers per session). It is spawned, initialized and given a session in its workspace
// with Baton's MCP servers, whose token speaks for no thread until one takes it. A host whose
// launch is the same (the thread id aside) takes the process over instead of spawning; a new
// thread takes the session too (only one: it is the spare's, and the spare is taken once), a
// thread resuming its own session closes the unused one. Bounds: one at a time; it counts against
// max_live_hosts and is the first process stopped for room; unused, it stops after idle_shutdown;
// a spare that fails is logged once, and after two failures in a row no more are made.
import { monotonicMs } from "../kernel/clock.js";
import type { Logger } from "../kernel/log.js";
import { userMessageOf } from "../kernel/errors.js";
import { AgentHost, HostStoppedError, type HostSink, type StartTimeouts } from "./host.js";
import type { LaunchSpec, McpAccess } from "./supervisor-types.js";

/** How long after a trigger the spare starts: out of the way of the start or turn that caused it. */
export const SPARE_DELAY_MS = 1_000;
/** Spares that failed one after another (no spare taken between) before no more are made. */
const MAX_FAILURES_IN_A_ROW = 2;
/** Names the thread in the agent's environment: a spare has none yet, so launches compare without it. */
export const THREAD_ENV = "BATON_THREAD_ID";

/** Whom the MCP token of a spare's session names until a thread takes it: a thread that does not exist. */
export const SPARE_SCOPE = "spare";

/** How a spare starts: the launch a new thread's host gets by default, and Baton's MCP servers for its session. */
export interface SpareLaunch {
  spec: LaunchSpec;
  /** Issued for SPARE_SCOPE; `bind` gives them to the thread that takes the session. */
  mcpServers?(agent: { http: boolean }): Promise<McpAccess>;
}

/** What a host takes over: the process, and the session made ahead when it asked for a new one. */
export interface TakenSpare {
  host: AgentHost;
  session?: { id: string; mcp?: McpAccess };
}

export interface SpareDeps {
  /** The spare's launch, or undefined when no spare fits (turned off, another machine). */
  launch(): Promise<SpareLaunch | undefined>;
  /** One more process fits within max_live_hosts. */
  room(): boolean;
  /** A host is starting: not idle time. */
  busy(): boolean;
  options(): { idleShutdownMs: number; startTimeouts?: StartTimeouts };
  log: Logger;
}

export interface SpareState {
  agent: string;
  pid?: number;
  state: "starting" | "ready";
  /** The session made ahead for the next new thread, once there is one. */
  session?: string;
}

interface Spare {
  host: AgentHost;
  launch: LaunchSpec;
  /** The session made ahead, with the MCP servers it was given (released when the spare goes untaken). */
  session?: { id: string; mcp?: McpAccess };
  /** True once initialized; false when the start failed or it was stopped. */
  ready: Promise<boolean>;
  state: "starting" | "ready";
  /** A host is taking it over: nothing else may stop it for room. */
  claimed?: boolean;
  /** The host that took it over: its updates, requests and exit go there from then on. */
  owner?: HostSink;
  stopping?: boolean;
  /** Its failure was logged (a failed start and the exit that follows are one failure). */
  reported?: boolean;
  idleTimer?: NodeJS.Timeout;
}

export class SpareHost {
  private spare?: Spare;
  private timer?: NodeJS.Timeout;
  /** The launch the last spare was made for: a host started with it asks for the next spare. */
  private lastLaunch?: LaunchSpec;
  private failuresInARow = 0;
  private closed = false;
  /** Set once Baton serves (prepare): before that, and in cores that never serve, no spare is made. */
  private prepared = false;
  /** An unused spare is kept at least until then (monotonic ms), however short agents.idle_shutdown: someone types. */
  private heldUntil = 0;

  constructor(private readonly deps: SpareDeps) {}

  /** Processes it holds (0 or 1), for max_live_hosts. */
  get count(): number {
    return this.spare ? 1 : 0;
  }

  state(): SpareState | undefined {
    const s = this.spare;
    return s && !s.claimed ? { agent: s.launch.kind.id, pid: s.host.pid, state: s.state, ...(s.session ? { session: s.session.id } : {}) } : undefined;
  }

  /** Baton serves: the first spare starts now, in the idle moment after start-up. */
  prepare(): void {
    this.prepared = true;
    // At once: its process is spawned before anything else loads, so it boots while Baton does.
    void this.start().catch((error: unknown) => this.deps.log.warn({ err: error }, "could not start a spare agent process"));
  }

  /** Makes a spare in a moment, if none runs; when a host is starting then, it waits for idle time. */
  schedule(delayMs = SPARE_DELAY_MS): void {
    if (!this.prepared || this.closed || this.spare || this.timer || this.failuresInARow >= MAX_FAILURES_IN_A_ROW) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.start().catch((error: unknown) => this.deps.log.warn({ err: error }, "could not start a spare agent process"));
    }, delayMs);
    this.timer.unref();
  }

  /** Keeps the spare (this one, or the next) from stopping unused before `untilMs` (monotonic ms). */
  hold(untilMs: number): void {
    this.heldUntil = Math.max(this.heldUntil, untilMs);
    const spare = this.spare;
    if (spare?.state === "ready" && !spare.claimed && !spare.stopping) {
      clearTimeout(spare.idleTimer);
      this.armIdleTimer(spare);
    }
  }

  /** A host started with this launch (the spare's, or a fresh one): threads are being opened, so a spare is worth having. */
  hostStarted(launch: LaunchSpec): void {
    if (this.lastLaunch && sameLaunch(this.lastLaunch, launch)) this.schedule();
  }

  /**
   * The spare, if its launch is this one and it starts up: from now on it is `owner`'s process, and
   * when `newSession` says so of its started process the session made ahead is the caller's (else it
   * is closed). Undefined when there is none, it is for another launch, or it failed (the caller spawns one).
   */
  async take(launch: LaunchSpec, owner: HostSink, { newSession }: { newSession: (host: AgentHost) => boolean }): Promise<TakenSpare | undefined> {
    const spare = this.spare;
    if (!spare || spare.claimed || spare.stopping || !sameLaunch(spare.launch, launch)) return undefined;
    spare.claimed = true;
    clearTimeout(spare.idleTimer);
    const ok = await spare.ready;
    if (this.spare === spare) this.spare = undefined;
    if (!ok || !spare.host.alive || spare.stopping) {
      spare.session?.mcp?.release();
      return undefined;
    }
    spare.owner = owner;
    this.failuresInARow = 0;
    const session = spare.session;
    spare.session = undefined;
    if (session && !newSession(spare.host)) {
      session.mcp?.release();
      void spare.host.closeSession(session.id);
      return { host: spare.host };
    }
    return { host: spare.host, session };
  }

  /** Stops the spare (for room, a config change); true when one was running. A spare being taken over is left alone. */
  async stop(why: string): Promise<boolean> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const spare = this.spare;
    if (!spare || spare.claimed) return false;
    await this.end(spare, why);
    return true;
  }

  /** Baton stops: the spare goes, even one being taken over, and no other starts. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.spare) await this.end(this.spare, "Baton stops");
  }

  /** A config reload: the spare may be for a launch no longer the default (or turned off); a new one follows. */
  async reset(): Promise<void> {
    if (!this.prepared || this.closed) return;
    const launch = (await this.deps.launch().catch(() => undefined))?.spec;
    // A spare (and its session, made in the same workspace) that still fits the default stays (a lower max_live_hosts takes it when a place is needed).
    if (this.spare && launch && sameLaunch(this.spare.launch, launch)) return;
    this.lastLaunch = undefined;
    this.failuresInARow = 0;
    await this.stop("the config changed");
    this.schedule();
  }

  private async end(spare: Spare, why: string): Promise<void> {
    if (this.spare === spare) this.spare = undefined;
    spare.stopping = true;
    clearTimeout(spare.idleTimer);
    spare.session?.mcp?.release();
    this.deps.log.info({ agent: spare.launch.kind.id, pid: spare.host.pid, why }, "spare agent process stopped");
    await spare.host.stop();
  }

  private async start(): Promise<void> {
    if (this.closed || this.spare) return;
    if (this.deps.busy()) return this.schedule();
    // No room now: the next host that starts asks again.
    if (!this.deps.room()) return;
    const made = await this.deps.launch();
    const launch = made?.spec;
    if (!made || !launch || launch.transport || this.closed || this.spare || this.deps.busy() || !this.deps.room()) return;
    this.lastLaunch = launch;
    const spare = { launch, state: "starting" } as Spare;
    spare.host = new AgentHost({
      ...launch,
      startTimeouts: this.deps.options().startTimeouts,
      sink: {
        onUpdate: (update, replay) => spare.owner?.onUpdate(update, replay),
        // No turn before a thread owns it: nothing may be approved until then.
        requestPermission: (request) => spare.owner?.requestPermission(request) ?? Promise.resolve({ outcome: { outcome: "cancelled" } }),
        onExit: (info) => {
          if (spare.owner) return spare.owner.onExit(info);
          if (this.spare === spare) this.spare = undefined;
          clearTimeout(spare.idleTimer);
          spare.session?.mcp?.release();
          if (!spare.stopping) this.failed(spare, `exited (code ${info.code}, signal ${info.signal})`, info.stderr);
        },
      },
    });
    this.spare = spare;
    spare.ready = this.boot(spare, made).then(
      () => {
        spare.state = "ready";
        if (spare.stopping) return false;
        this.deps.log.info(
          { agent: launch.kind.id, pid: spare.host.pid, cwd: launch.cwd, session: spare.session?.id, cpu_class: spare.host.cpuClass },
          "spare agent process ready for the next new thread",
        );
        if (!spare.claimed) this.armIdleTimer(spare);
        return true;
      },
      async (error: unknown) => {
        if (!(error instanceof HostStoppedError) && !spare.stopping) this.failed(spare, userMessageOf(error), spare.host.stderrForLog());
        if (this.spare === spare) this.spare = undefined;
        spare.session?.mcp?.release();
        await spare.host.stop();
        return false;
      },
    );
  }

  /** Starts the process and opens the session the next new thread takes, with Baton's MCP servers for it. */
  private async boot(spare: Spare, made: SpareLaunch): Promise<void> {
    await spare.host.start();
    if (spare.stopping || spare.claimed) return;
    const mcp = await made.mcpServers?.({ http: spare.host.supportsMcpHttp });
    if (spare.stopping) return mcp?.release();
    const opened = await spare.host.openSession(undefined, mcp?.servers).catch((error: unknown) => {
      mcp?.release();
      throw error;
    });
    spare.session = { id: opened.sessionId, mcp };
    // Stopped meanwhile: its stop found no session to release.
    if (spare.stopping) mcp?.release();
  }

  private armIdleTimer(spare: Spare): void {
    spare.idleTimer = setTimeout(
      () => {
        if (this.spare !== spare || spare.claimed) return;
        void this.end(spare, "unused for agents.idle_shutdown; the next new thread's host starts one again");
      },
      Math.max(this.deps.options().idleShutdownMs, this.heldUntil - monotonicMs()),
    );
    spare.idleTimer.unref();
  }

  private failed(spare: Spare, reason: string, stderr: string): void {
    if (spare.reported) return;
    spare.reported = true;
    this.failuresInARow++;
    const giveUp = this.failuresInARow >= MAX_FAILURES_IN_A_ROW;
    const next = giveUp ? `${this.failuresInARow} in a row: no more spares until Baton restarts or its config is reloaded` : "another is made once a thread's agent of this kind has started";
    this.deps.log.warn({ agent: spare.launch.kind.id, pid: spare.host.pid, reason, stderr }, `spare agent process failed; new threads start their own (${next})`);
  }
}

/** The same process would be started: kind, command, arguments, directory and environment (the thread id aside), on this machine. */
function sameLaunch(a: LaunchSpec, b: LaunchSpec): boolean {
  if (a.transport || b.transport) return false;
  if (a.kind.id !== b.kind.id || a.command !== b.command || a.cwd !== b.cwd || a.args.length !== b.args.length || a.args.some((arg, i) => arg !== b.args[i])) return false;
  const keys = new Set([...Object.keys(a.env), ...Object.keys(b.env)]);
  keys.delete(THREAD_ENV);
  for (const key of keys) if (a.env[key] !== b.env[key]) return false;
  return true;
}

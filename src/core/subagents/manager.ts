// Subagents of chat threads: the MCP tools a thread's agent calls (initialize, wait, cancel), the
// chat's view of each multi-agent turn, /stop and /close, and what a restart does: subagents that
// ran are marked interrupted at start, and resumed from their sessions when the thread's agent
// starts again, or reported as interrupted to its next wait — never lost.
import { randomBytes } from "node:crypto";
import type { Machines } from "../../agents/machines/index.js";
import type { Supervisor } from "../../agents/supervisor.js";
import type { CancelSubagentsArgs, InitializeSubagentsArgs, SubagentTools, WaitForSubagentsArgs } from "./tools.js";
import type { McpCaller } from "../tool-calls.js";
import type { ToolReply } from "../tool-calls.js";
import { SubagentError } from "../../kernel/errors.js";
import type { Logger } from "../../kernel/log.js";
import type { ThreadRecord, ThreadRegistry } from "../../threads/registry.js";
import { isSubagentFinished, type SubagentRecord } from "./records.js";
import type { AgentMcp } from "../agent-mcp.js";
import type { BatonAgents } from "../agents.js";
import type { ApprovalBroker } from "../approvals.js";
import type { RouteTarget, StreamSettings } from "../stream.js";
import { SubagentJobs, type JobDeps } from "./jobs.js";
import type { PlatformUser } from "../../platforms/contract.js";
import { cancelReply, initializeReply, waitReply, type ReportInput } from "./reports.js";
import { HostRoom } from "./room.js";
import { renderStatus, StatusBlock } from "./status.js";
import { planSubagents } from "./plan.js";
import { ThreadWatchers } from "./watch.js";

const DEFAULT_WAIT_S = 45;
/** How long shutdown waits for subagents to stop before their processes go with the daemon. */
const SHUTDOWN_WAIT_MS = 5_000;

export interface SubagentDeps {
  registry: ThreadRegistry;
  /** Where the thread's agent works (its own worktree, when it has one): subagents start from there. */
  workdir(thread: ThreadRecord): string;
  supervisor: Supervisor;
  agents: BatonAgents;
  machines: Machines;
  approvals: ApprovalBroker;
  mcp: AgentMcp;
  targets(thread: ThreadRecord): RouteTarget[];
  streamSettings: StreamSettings;
  /** The thread host's current turn: its number (a new one starts a new multi-agent turn) and a flush of what it streamed so far. */
  hostTurn(threadId: string): { seq: number; flush(): void };
  maxPerThread: number;
  maxLiveHosts: number;
  /** A round ended: it counts toward the limits of the person whose prompt started the thread's turn, and the audit trail records it. */
  roundEnded?: JobDeps["roundEnded"];
  /** Before subagents start: why that person's limits refuse them, or undefined. */
  subagentsRefusal?(requester: PlatformUser, route: string, rounds: number): Promise<string | undefined>;
  log: Logger;
}

/** A thread's multi-agent turn as this daemon shows it. */
interface Run {
  id: string;
  turnSeq: number;
  status: StatusBlock;
}

export interface SubagentSummary {
  name: string;
  agent: string;
  state: string;
  lastTool?: string;
}

export class SubagentManager implements SubagentTools {
  readonly room: HostRoom;
  private readonly watchers = new ThreadWatchers();
  private readonly jobs: SubagentJobs;
  private readonly runs = new Map<string, Run>();

  constructor(private readonly deps: SubagentDeps) {
    this.room = new HostRoom(() => deps.supervisor.makeRoom());
    this.jobs = new SubagentJobs({ ...deps, room: this.room, watchers: this.watchers, streamFor: (id) => this.runOf(id).status.stream, changed: (id) => this.changed(id) });
  }

  async initialize(args: InitializeSubagentsArgs, caller: McpCaller): Promise<ToolReply> {
    const thread = this.hostThread(caller);
    const seq = this.deps.hostTurn(thread.id).seq;
    const current = this.runs.get(thread.id);
    const sameTurn = current?.turnSeq === seq;
    const plan = await planSubagents(args, thread, {
      agents: this.deps.agents,
      machines: this.deps.machines,
      maxPerThread: this.deps.maxPerThread,
      maxLiveHosts: this.deps.maxLiveHosts,
      run: sameTurn ? current.id : undefined,
    });
    // Their rounds are turns of the person whose prompt runs the thread's turn: none start past that person's limits.
    const requester = this.deps.agents.runningAuthor(thread.id);
    const refused = requester && (await this.deps.subagentsRefusal?.(requester, [...thread.routes][0] ?? "", plan.length));
    if (refused) throw new SubagentError(refused);
    const run = sameTurn ? current : this.newRun(thread.id, randomBytes(3).toString("hex"), seq);
    await this.deps.registry.addSubagents(
      thread.id,
      plan.map((p) => ({ ...p, run: run.id })),
    );
    this.deps.hostTurn(thread.id).flush();
    this.changed(thread.id);
    for (const p of plan) this.jobs.start(thread.id, p.name, false);
    return initializeReply(
      this.items(
        thread.id,
        plan.map((p) => p.name),
      ),
      args.mode,
    );
  }

  async wait(args: WaitForSubagentsArgs, caller: McpCaller, signal?: AbortSignal): Promise<ToolReply> {
    const thread = this.hostThread(caller);
    const names = this.named(thread, args.names);
    const finished = () => names.every((n) => this.isDone(thread.id, n));
    const timeoutMs = (args.timeout_s ?? DEFAULT_WAIT_S) * 1000;
    const all = await this.watchers.until(thread.id, finished, { timeoutMs, signal });
    return waitReply(this.items(thread.id, names), !all);
  }

  async cancel(args: CancelSubagentsArgs, caller: McpCaller): Promise<ToolReply> {
    const thread = this.hostThread(caller);
    const names = args.names ? this.named(thread, args.names) : thread.subagents.filter((s) => !isSubagentFinished(s)).map((s) => s.name);
    await this.cancelNamed(thread.id, names, "cancelled by the thread's agent");
    return cancelReply(this.items(thread.id, names));
  }

  /** /stop and /close: every subagent of the thread still queued or running is cancelled. Returns how many. */
  async cancelAll(threadId: string, note: string): Promise<number> {
    const names = (this.deps.registry.get(threadId)?.subagents ?? []).filter((s) => !isSubagentFinished(s)).map((s) => s.name);
    await this.cancelNamed(threadId, names, note);
    return names.length;
  }

  /** The thread was closed (after cancelAll): its chat view is no longer kept. */
  forget(threadId: string): void {
    this.runs.delete(threadId);
  }

  /** For /status: the thread's subagents with their states and last tools. */
  list(threadId: string): SubagentSummary[] {
    return this.items(threadId).map(({ record: s, lastTool }) => ({ name: s.name, agent: s.agent, state: s.state, lastTool }));
  }

  /** Agent processes of subagents, for max_live_hosts. */
  liveCount(): number {
    return this.room.count;
  }

  /** At start: subagents the log shows queued or running did not survive the last daemon; they are interrupted. */
  async markInterrupted(): Promise<void> {
    for (const thread of this.deps.registry.openThreads()) {
      for (const s of thread.subagents) {
        if (s.state !== "queued" && s.state !== "running") continue;
        await this.deps.registry.updateSubagent(thread.id, {
          name: s.name,
          state: "interrupted",
          recovery: "pending",
          note: "Baton stopped while it ran; it resumes when the thread's agent starts again",
        });
      }
    }
  }

  /** The thread's agent (re)started: interrupted subagents resume from their sessions (or start, if they never had one). */
  resume(threadId: string): void {
    const thread = this.deps.registry.get(threadId);
    const pending = (thread?.subagents ?? []).filter((s) => s.state === "interrupted" && s.recovery === "pending" && !this.jobs.isLive(threadId, s.name));
    if (!thread || pending.length === 0) return;
    if (!this.runs.has(threadId)) this.newRun(threadId, pending[0].run, -1);
    this.deps.log.info({ thread: threadId, subagents: pending.map((s) => s.name) }, "resuming interrupted subagents");
    for (const s of pending) this.jobs.start(threadId, s.name, true);
    this.changed(threadId);
  }

  /** Daemon shutdown: running subagents stop and stay `interrupted`, to resume after the restart. */
  async shutdown(): Promise<void> {
    const stopping = this.jobs.all().map(({ threadId, name }) => this.jobs.stop(threadId, name, "interrupt"));
    await Promise.race([Promise.all(stopping), new Promise((r) => setTimeout(r, SHUTDOWN_WAIT_MS))]);
  }

  private async cancelNamed(threadId: string, names: string[], note: string): Promise<void> {
    await Promise.all(
      names.map(async (name) => {
        if (this.jobs.isLive(threadId, name)) return this.jobs.stop(threadId, name, "cancel", note);
        const s = this.deps.registry.get(threadId)?.subagents.find((x) => x.name === name);
        // Interrupted and never resumed: nothing runs, so cancelling is recording it.
        if (s && !isSubagentFinished(s)) {
          await this.deps.registry.updateSubagent(threadId, { name, state: "cancelled", note });
          this.changed(threadId);
        }
      }),
    );
  }

  private hostThread(caller: McpCaller): ThreadRecord {
    if (!caller.thread) throw new SubagentError("Subagents are for the agents Baton runs for a chat thread; this MCP client is not one of them.");
    if (caller.subagent) throw new SubagentError("A subagent cannot start, wait for or cancel subagents; only the thread's own agent can.");
    const thread = this.deps.registry.get(caller.thread);
    if (!thread?.open) throw new SubagentError("This agent's chat thread is closed.");
    return thread;
  }

  /** The names asked for, checked against the thread's subagents; all of them when none are given. */
  private named(thread: ThreadRecord, names: string[] | undefined): string[] {
    const known = thread.subagents.map((s) => s.name);
    if (known.length === 0) throw new SubagentError("This thread has no subagents. Start some with initialize_subagents.");
    if (!names || names.length === 0) return known;
    const unknown = names.filter((n) => !known.includes(n));
    if (unknown.length > 0) throw new SubagentError(`No subagent named ${unknown.join(", ")} on this thread. Its subagents: ${known.join(", ")}.`);
    return [...new Set(names)];
  }

  /** Finished for a wait: ended for good, or interrupted with no agent to resume it (it is reported as such). */
  private isDone(threadId: string, name: string): boolean {
    const s = this.deps.registry.get(threadId)?.subagents.find((x) => x.name === name);
    return !s || isSubagentFinished(s) || (s.state === "interrupted" && !this.jobs.isLive(threadId, name) && s.recovery !== "pending");
  }

  private items(threadId: string, names?: string[]): ReportInput[] {
    const all = this.deps.registry.get(threadId)?.subagents ?? [];
    const chosen: SubagentRecord[] = names ? names.map((n) => all.find((s) => s.name === n)).filter((s): s is SubagentRecord => !!s) : all;
    return chosen.map((record) => ({ record, lastTool: this.jobs.lastTool(threadId, record.name) }));
  }

  private newRun(threadId: string, id: string, turnSeq: number): Run {
    const thread = this.deps.registry.get(threadId)!;
    const run: Run = { id, turnSeq, status: new StatusBlock(() => this.deps.targets(thread), this.deps.streamSettings, this.deps.log) };
    this.runs.get(threadId)?.status.handOver();
    this.runs.set(threadId, run);
    return run;
  }

  private runOf(threadId: string): Run {
    return this.runs.get(threadId) ?? this.newRun(threadId, "restored", -1);
  }

  private changed(threadId: string): void {
    this.watchers.notify(threadId);
    const run = this.runs.get(threadId);
    const items = this.items(threadId);
    if (!run || items.length === 0) return;
    run.status.show(
      renderStatus(items, (agent) => agent),
      items.every((i) => isSubagentFinished(i.record)),
    );
  }
}

// The life of one subagent in this daemon: for each of its rounds, wait for the others' reports
// (collaboration), wait for room among the live agent processes, run the round, record what came
// of it; then finish its worktree and record its final state. Everything it does is recorded on
// the thread as it happens, so a restart finds it `interrupted` with its session and resumes it.
import { randomBytes } from "node:crypto";
import type { Machines } from "../../agents/machines/index.js";
import type { Supervisor } from "../../agents/supervisor.js";
import { SubagentError, userMessageOf } from "../../kernel/errors.js";
import type { Logger } from "../../kernel/log.js";
import type { ThreadRecord, ThreadRegistry } from "../../threads/registry.js";
import { isSubagentFinished, MAX_STORED_FILES, MAX_STORED_MESSAGE_CHARS, type SubagentRecord, type SubagentUpdatedBody } from "./records.js";
import type { AgentMcp } from "../agent-mcp.js";
import type { BatonAgents } from "../agents.js";
import type { ApprovalBroker } from "../approvals.js";
import type { TurnStream } from "../stream.js";
import { subagentPrompt } from "./prompts.js";
import type { HostRoom } from "./room.js";
import { SubagentRound, type RoundResult } from "./round.js";
import type { PlatformUser } from "../../platforms/contract.js";
import type { ThreadWatchers } from "./watch.js";
import { createWorktree, finishWorktree } from "./worktree.js";

export interface JobDeps {
  registry: ThreadRegistry;
  /** Where the thread's agent works (its own worktree, when it has one): subagents branch from there. */
  workdir(thread: ThreadRecord): string;
  supervisor: Pick<Supervisor, "acquireStartSlot">;
  agents: BatonAgents;
  machines: Machines;
  approvals: ApprovalBroker;
  mcp: AgentMcp;
  room: HostRoom;
  watchers: ThreadWatchers;
  /** Where the thread's multi-agent turn shows (its status block's stream): approvals go there. */
  streamFor(threadId: string): TurnStream;
  /** Something about the thread's subagents changed (state, round, last tool). */
  changed(threadId: string): void;
  /**
   * A round ended: it counts as a turn of the person whose prompt started the thread's turn (none for
   * a schedule's), with what it spent (limits per person), and the audit trail records it.
   */
  roundEnded?(round: EndedRound): void;
  log: Logger;
}

/** A subagent's round as it ended. */
export interface EndedRound {
  threadId: string;
  subagent: string;
  agent: string;
  /** Where it worked (`machine:path` on another machine). */
  workspace: string;
  requester?: PlatformUser;
  session?: string;
  result: Pick<RoundResult, "stopReason" | "usage">;
  ms: number;
}

interface Live {
  threadId: string;
  name: string;
  abort: AbortController;
  /** Why it is being stopped: cancelled (by the agent, /stop, /close), or interrupted (Baton stops). */
  stop?: "cancel" | "interrupt";
  note?: string;
  round?: SubagentRound;
  lastTool?: string;
  /** Resuming after a restart, until its first round ends: a failure then leaves it `interrupted`. */
  recovering: boolean;
  done: Promise<void>;
}

type Outcome = Pick<SubagentUpdatedBody, "state" | "note" | "recovery">;

const INTERRUPTED_NOTE = "Baton stopped while it ran; it resumes when the thread's agent starts again";

export class SubagentJobs {
  private readonly live = new Map<string, Live>();

  constructor(private readonly deps: JobDeps) {}

  /** Runs a subagent recorded on the thread (queued, or interrupted and resumed). */
  start(threadId: string, name: string, resumed: boolean): void {
    const key = keyOf(threadId, name);
    if (this.live.has(key)) return;
    const live: Live = { threadId, name, abort: new AbortController(), recovering: resumed, done: Promise.resolve() };
    this.live.set(key, live);
    live.done = this.run(live)
      .catch((error: unknown) => this.deps.log.error({ thread: threadId, subagent: name, err: error }, "subagent job failed"))
      .finally(() => {
        this.live.delete(key);
        this.deps.changed(threadId);
      });
  }

  isLive(threadId: string, name: string): boolean {
    return this.live.has(keyOf(threadId, name));
  }

  lastTool(threadId: string, name: string): string | undefined {
    return this.live.get(keyOf(threadId, name))?.lastTool;
  }

  /** Stops a running subagent and waits until its job recorded how it ended. */
  async stop(threadId: string, name: string, how: "cancel" | "interrupt", note?: string): Promise<void> {
    const live = this.live.get(keyOf(threadId, name));
    if (!live) return;
    live.stop ??= how;
    live.note ??= note;
    live.abort.abort();
    live.round?.cancel();
    await live.done;
  }

  /** Every subagent running in this daemon (for shutdown). */
  all(): Array<{ threadId: string; name: string }> {
    return [...this.live.values()].map(({ threadId, name }) => ({ threadId, name }));
  }

  private record(threadId: string, name: string): SubagentRecord {
    const s = this.deps.registry.get(threadId)?.subagents.find((x) => x.name === name);
    if (!s) throw new SubagentError(`subagent ${name} is gone from thread ${threadId}`);
    return s;
  }

  private async update(threadId: string, name: string, body: Omit<SubagentUpdatedBody, "type" | "name">): Promise<void> {
    await this.deps.registry.updateSubagent(threadId, { name, ...body });
    this.deps.changed(threadId);
  }

  private async run(live: Live): Promise<void> {
    const { threadId, name } = live;
    let outcome: Outcome = { state: "done" };
    try {
      const first = this.record(threadId, name);
      for (let round = first.round; round <= first.rounds; round++) {
        if (this.record(threadId, name).messages[round - 1] !== undefined) continue; // done before a restart
        if (first.mode === "collaboration" && round > 1) await this.roundDone(live, first.run, round - 1);
        const release = await this.deps.room.acquire(live.abort.signal);
        try {
          outcome = await this.runRound(live, round);
        } finally {
          release();
        }
        live.recovering = false;
        if (live.stop || outcome.state !== "done") break;
      }
    } catch (error) {
      const text = userMessageOf(error);
      if (!live.stop) this.deps.log.warn({ thread: threadId, subagent: name, reason: text }, "subagent failed");
      outcome = live.recovering ? { state: "interrupted", recovery: "failed", note: `it could not be resumed: ${text}` } : { state: "failed", note: text };
    }
    if (live.stop === "cancel") outcome = { state: "cancelled", note: live.note };
    if (live.stop === "interrupt") outcome = { state: "interrupted", recovery: "pending", note: INTERRUPTED_NOTE };
    await this.finish(live, outcome);
  }

  /** Collaboration: round `round` is over once every sibling has its report of it, or has ended. */
  private async roundDone(live: Live, run: string, round: number): Promise<void> {
    const siblings = () => (this.deps.registry.get(live.threadId)?.subagents ?? []).filter((s) => s.run === run);
    const ready = () => siblings().every((s) => s.messages[round - 1] !== undefined || isSubagentFinished(s) || (s.state === "interrupted" && !this.isLive(live.threadId, s.name)));
    if (!(await this.deps.watchers.until(live.threadId, ready, { signal: live.abort.signal }))) throw new SubagentError("cancelled");
  }

  private async runRound(live: Live, round: number): Promise<Outcome> {
    const { threadId, name } = live;
    const thread = this.deps.registry.get(threadId)!;
    await this.update(threadId, name, { state: "running", round });
    const s = this.record(threadId, name);
    const { machine, path } = this.deps.machines.locate(this.deps.workdir(thread));
    let tree = s.worktree;
    if (s.isolation === "worktree" && !tree) {
      tree = await createWorktree(machine, path, { threadId, run: s.run, name });
      await this.update(threadId, name, { worktree: tree });
    }
    const cwd = tree?.cwd ?? path;
    const workspace = this.deps.machines.format(machine.name, cwd);
    const spec = await this.deps.agents.launchFor({ agent: s.agent, profile: s.profile, workspace, threadId, host: false });
    const prompt = roundPrompt(s, thread.subagents, round, { cwd, branch: tree?.branch, resumed: live.recovering && s.session !== undefined });
    // The person whose prompt runs the thread's turn now: they decide its subagents' requests (approvals.by) and pay for their rounds.
    const requester = this.deps.agents.runningAuthor(threadId);
    const runner = new SubagentRound({
      spec,
      session: s.session,
      prompt,
      mcp: (agent) => this.deps.mcp.serversFor(workspace, { thread: threadId, subagent: name }, agent),
      startSlot: () => this.deps.supervisor.acquireStartSlot(),
      approvals: this.deps.approvals,
      approvalTurn: { id: randomBytes(6).toString("base64url"), threadId, stream: this.deps.streamFor(threadId), label: `subagent ${name}`, requester },
      onSession: async (opened) => {
        if (opened.how === "new-after-failed-resume") live.note = "its session could not be resumed, so it started over in a new one";
        if (opened.sessionId !== s.session) await this.update(threadId, name, { session: opened.sessionId });
      },
      onTool: (title) => {
        live.lastTool = title;
        this.deps.changed(threadId);
      },
      log: this.deps.log,
    });
    live.round = runner;
    if (live.stop) runner.cancel();
    const startedAt = Date.now();
    const result = await runner.run().finally(() => (live.round = undefined));
    this.deps.roundEnded?.({ threadId, subagent: name, agent: s.agent, workspace, requester, session: this.record(threadId, name).session, result, ms: Date.now() - startedAt });
    const files = [...new Set([...this.record(threadId, name).files, ...result.files])].slice(0, MAX_STORED_FILES);
    // An interrupted round is not over: it runs again (resumed) after the restart.
    if (live.stop === "interrupt") {
      await this.update(threadId, name, { files });
      return { state: "interrupted" };
    }
    await this.update(threadId, name, { message: { round, text: result.message.slice(0, MAX_STORED_MESSAGE_CHARS) }, files });
    return roundOutcome(result, live.note);
  }

  /** Records the final state; a finished worktree is committed and removed first (kept for a resume). */
  private async finish(live: Live, outcome: Outcome): Promise<void> {
    const { threadId, name } = live;
    const s = this.deps.registry.get(threadId)?.subagents.find((x) => x.name === name);
    if (!s) return;
    let note = outcome.note;
    if (s.worktree && outcome.recovery !== "pending") {
      const thread = this.deps.registry.get(threadId)!;
      const { machine, path } = this.deps.machines.locate(this.deps.workdir(thread));
      try {
        const result = await finishWorktree(machine, path, s.worktree, `Subagent ${name}: ${s.task.split("\n")[0].slice(0, 72)}`);
        await this.update(threadId, name, { worktreeRemoved: { branch: result.branch }, files: result.files.slice(0, MAX_STORED_FILES) });
      } catch (error) {
        note = [note, `its worktree ${s.worktree.path} was left in place (${userMessageOf(error)})`].filter(Boolean).join("; ");
      }
    }
    await this.update(threadId, name, { state: outcome.state, note: note ?? "", recovery: outcome.recovery });
  }
}

function keyOf(threadId: string, name: string): string {
  return `${threadId}\0${name}`;
}

/** The prompt of a subagent's round; in collaboration, from round 2 on, with the others' reports of the round before. */
function roundPrompt(s: SubagentRecord, all: SubagentRecord[], round: number, where: { cwd: string; branch?: string; resumed: boolean }): string {
  const siblings = all.filter((x) => x.run === s.run);
  const others =
    s.mode === "collaboration" && round > 1
      ? siblings.filter((x) => x.name !== s.name).map((x) => ({ name: x.name, text: x.messages[round - 2] ?? `(no report: ${x.state}${x.note ? `, ${x.note}` : ""})` }))
      : undefined;
  return subagentPrompt({ name: s.name, count: siblings.length, mode: s.mode, round, rounds: s.rounds, task: s.task, shared: s.context, ...where, others });
}

/** What a round that ran to its end means for the subagent (`note`: what happened on the way). */
function roundOutcome(result: RoundResult, note: string | undefined): Outcome {
  if (result.stopReason === "cancelled") return { state: "cancelled", note: note ?? "the agent cancelled its turn" };
  if (result.stopReason === "refusal") return { state: "failed", note: "the agent refused to continue" };
  const limit = result.stopReason === "max_tokens" || result.stopReason === "max_turn_requests" ? `it stopped at its limit (${result.stopReason})` : undefined;
  return { state: "done", note: [note, limit].filter(Boolean).join("; ") || undefined };
}

// Turns an initialize_subagents call into the subagents to record, or a clear error saying what
// would work: names, tasks, agent kinds and profiles, the per-thread limit, worktree isolation.
import type { Machines } from "../../agents/machines/index.js";
import type { InitializeSubagentsArgs } from "./tools.js";
import { BatonError, SubagentError } from "../../kernel/errors.js";
import type { ThreadRecord } from "../../threads/registry.js";
import { isSubagentFinished, SUBAGENT_MODES, type SubagentAddedBody } from "./records.js";
import type { BatonAgents } from "../agents.js";

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;
const DEFAULT_COLLABORATION_ROUNDS = 2;
/** A task is a prompt: the same bound as a chat message. */
const MAX_TASK_CHARS = 100_000;

export type PlannedSubagent = Omit<SubagentAddedBody, "type" | "run">;

export interface PlanContext {
  agents: BatonAgents;
  machines: Machines;
  maxPerThread: number;
  maxLiveHosts: number;
  /** The multi-agent turn this call adds to, when the thread's agent already started one in this turn. */
  run?: string;
}

export async function planSubagents(args: InitializeSubagentsArgs, thread: ThreadRecord, ctx: PlanContext): Promise<PlannedSubagent[]> {
  if (!SUBAGENT_MODES.includes(args.mode)) throw new SubagentError(`Unknown mode "${String(args.mode)}": use ${SUBAGENT_MODES.join(", ")}.`);
  const asked = Array.isArray(args.subagents) ? args.subagents : [];
  if (asked.length === 0) throw new SubagentError("Name at least one subagent in `subagents`.");
  if (ctx.maxLiveHosts < 2) {
    throw new SubagentError(`agents.max_live_hosts is ${ctx.maxLiveHosts} in the Baton config, so no subagent can run beside you. Ask the operator to raise it, or do the work yourself.`);
  }
  const active = thread.subagents.filter((s) => !isSubagentFinished(s));
  if (active.length + asked.length > ctx.maxPerThread) {
    throw new SubagentError(
      `A thread may have at most ${ctx.maxPerThread} subagents queued or running at once (agents.subagents.max_per_thread in the Baton config); ` +
        `${active.length} ${active.length === 1 ? "is" : "are"} and you asked for ${asked.length} more. Wait for some to finish, cancel some, or ask for fewer.`,
    );
  }
  const seen = new Set<string>();
  const planned: PlannedSubagent[] = [];
  for (const s of asked) {
    const name = String(s.name ?? "");
    if (!NAME.test(name)) throw new SubagentError(`"${name}" is not a subagent name: use up to 32 letters, digits, - and _, starting with a letter or digit.`);
    if (seen.has(name)) throw new SubagentError(`Two subagents are named "${name}"; give each its own name.`);
    seen.add(name);
    const clash = thread.subagents.find((x) => x.name === name && (!isSubagentFinished(x) || x.run === ctx.run));
    if (clash) throw new SubagentError(`This thread already has a subagent named "${name}" (${clash.state}) in this turn; pick another name.`);
    const task = (args.mode === "brainstorming" ? (s.task ?? args.task) : s.task)?.trim();
    if (!task) throw new SubagentError(args.mode === "brainstorming" ? `Give the question as \`task\` (for all) or as ${name}'s own task.` : `Give ${name} a task.`);
    if (task.length + (args.task?.length ?? 0) > MAX_TASK_CHARS)
      throw new SubagentError(`${name}'s task is too long (at most ${MAX_TASK_CHARS} characters with the shared context); put the details in a file and name it.`);
    planned.push({
      name,
      ...host(s, thread, ctx.agents),
      mode: args.mode,
      task,
      context: args.mode !== "brainstorming" && args.task?.trim() ? args.task.trim() : undefined,
      rounds: args.mode === "collaboration" ? (args.rounds ?? DEFAULT_COLLABORATION_ROUNDS) : 1,
      isolation: args.isolation === "worktree" ? "worktree" : undefined,
    });
  }
  if (args.isolation === "worktree") await requireRepository(thread.workspace, ctx.machines);
  return planned;
}

/** The agent kind and profile: the thread's own unless named. */
function host(s: { agent?: string; profile?: string }, thread: ThreadRecord, agents: BatonAgents): { agent: string; profile?: string } {
  if (!s.agent && !s.profile) return { agent: thread.agent, profile: thread.profile };
  try {
    const chosen = agents.resolveHost(s.profile ? [s.agent ?? thread.agent, s.profile] : [s.agent!]);
    return { agent: chosen.agent, profile: chosen.profile };
  } catch (error) {
    throw new SubagentError(error instanceof BatonError ? error.userMessage : String(error));
  }
}

async function requireRepository(workspace: string, machines: Machines): Promise<void> {
  const { machine, path } = machines.locate(workspace);
  const result = await machine.exec(["git", "rev-parse", "--verify", "HEAD"], path);
  if (result.code !== 0) {
    throw new SubagentError(
      `isolation: worktree needs a git repository with a first commit, and \`${path}\` is not one (${result.stderr.trim().split("\n").at(-1) || `exit ${result.code}`}). Use isolation: shared, or commit there first.`,
    );
  }
}

// The chat's side of thread worktrees (/diff, /merge, /close and its --discard confirmation): the
// WorktreesApi the commands reach, over thread-worktrees.ts (which worktree) and worktree-git.ts
// (what git does). A discard is only done after a press on its confirmation button.
import { randomBytes } from "node:crypto";
import type { WorktreesApi } from "../commands/context.js";
import { CommandError, userMessageOf } from "../kernel/errors.js";
import type { Logger } from "../kernel/log.js";
import type { ActionOutcome, ActionPress, Button } from "../platforms/contract.js";
import type { ThreadRecord, ThreadRegistry, ThreadWorktree } from "../threads/registry.js";
import type { Machines } from "../agents/machines/index.js";
import type { ThreadWorktrees } from "./thread-worktrees.js";
import { commitLeftovers, mergeBranch, pushBranch, remoteOf, removeWorktree, worktreeDiff } from "./worktree-git.js";
import { forgeFor, MAX_BODY_CHARS, openPullRequest, parseRemote } from "./forges.js";
import type { BatonConfig } from "../config/schema.js";
import { redactSecrets, registerSecretValues, urlForDisplay } from "../kernel/secrets.js";

const ACTION_PREFIX = "wt:";
/** Unanswered discard confirmations remembered; the oldest are forgotten first. */
const MAX_PENDING = 100;

export interface WorktreeCommandDeps {
  worktrees: ThreadWorktrees;
  registry: ThreadRegistry;
  machines: Machines;
  /** Read at each call: a reload changes them. */
  forges(): BatonConfig["forges"];
  /** The thread's brief (redacted), for a pull request's body; undefined when it has no session yet. */
  brief(thread: ThreadRecord): Promise<string | undefined>;
  /** Closes a thread and stops its agent (as /close does). */
  closeThread(threadId: string, reason: string): Promise<void>;
  log: Logger;
}

export class WorktreeCommands implements WorktreesApi {
  /** Discard confirmations by id: the thread, and the route that asked. */
  private readonly pending = new Map<string, { threadId: string; route: string }>();

  constructor(private readonly deps: WorktreeCommandDeps) {}

  beforePrompt(thread: ThreadRecord, prompt: string): Promise<string | undefined> {
    return this.deps.worktrees.beforePrompt(thread, prompt);
  }

  describe(thread: ThreadRecord): Promise<string | undefined> {
    return this.deps.worktrees.describe(thread);
  }

  async diff(thread: ThreadRecord) {
    const tree = this.required(thread);
    const { files, patch } = await worktreeDiff(this.machineOf(thread), tree);
    return { branch: tree.branch, baseBranch: tree.baseBranch, files, patch };
  }

  merge(thread: ThreadRecord): Promise<string> {
    return mergeBranch(this.machineOf(thread), thread, this.required(thread));
  }

  async pullRequest(thread: ThreadRecord, title?: string): Promise<string> {
    const tree = this.required(thread);
    const machine = this.machineOf(thread);
    const remote = await remoteOf(machine, tree);
    const repo = parseRemote(remote.url);
    if (!repo)
      throw new CommandError(`The remote ${remote.name} (${urlForDisplay(remote.url)}) is not on a forge Baton can open requests on. Push it yourself, or set a forge's URL for ${remote.name}.`);
    const forge = forgeFor(this.deps.forges(), repo.host);
    if (!forge) throw new CommandError(`No forge is configured for ${repo.host}. Add one to the config: forges: { ${repo.host}: { kind: github | gitlab | gitea, token: \${TOKEN} } }.`);
    registerSecretValues([forge.token]);
    await commitLeftovers(machine, thread, tree, "/pr");
    await pushBranch(machine, tree, remote.name);
    const brief = await this.deps.brief(thread).catch((error: unknown) => {
      this.deps.log.warn({ err: error, thread: thread.id }, "no brief for a pull request's body");
      return undefined;
    });
    const intro = `Opened from Baton thread \`${thread.id}\` (branch \`${tree.branch}\`).`;
    const body = redactSecrets(brief ? `${intro}\n\n${brief}` : intro).slice(0, MAX_BODY_CHARS);
    const link = await openPullRequest(forge, repo, { title: title?.trim() || tree.topic || tree.branch, head: tree.branch, base: tree.baseBranch, body });
    return `🔀 Pushed \`${tree.branch}\` to ${remote.name} and opened ${forge.kind === "gitlab" ? "a merge" : "a pull"} request into \`${tree.baseBranch}\`: ${link}`;
  }

  async removeAfterClose(thread: ThreadRecord): Promise<string | undefined> {
    const tree = this.deps.worktrees.of(thread);
    if (!tree) return undefined;
    await removeWorktree(this.machineOf(thread), thread, tree, false);
    await this.deps.registry.worktreeRemoved(thread.id, false);
    return `Its worktree is removed; the branch \`${tree.branch}\` stays (merge it, or delete it with \`git branch -D ${tree.branch}\`).`;
  }

  askDiscard(thread: ThreadRecord, route: string): { text: string; buttons: Button[][] } {
    const tree = this.required(thread);
    if (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value!);
    const id = randomBytes(6).toString("base64url");
    this.pending.set(id, { threadId: thread.id, route });
    return {
      text: `🗑️ Close thread \`${thread.id}\` and delete its worktree and the branch \`${tree.branch}\`, with every change on it? This cannot be undone.`,
      buttons: [
        [
          { id: `${ACTION_PREFIX}${id}:yes`, label: "Delete branch", style: "danger" },
          { id: `${ACTION_PREFIX}${id}:no`, label: "Keep", style: "default" },
        ],
      ],
    };
  }

  isAction(actionId: string): boolean {
    return actionId.startsWith(ACTION_PREFIX);
  }

  /** A press on a discard confirmation (`wt:<id>:yes|no`); Inbound has already checked the person is allowed. */
  async answerAction(press: ActionPress): Promise<ActionOutcome> {
    const [, id, answer] = press.actionId.split(":");
    const asked = this.pending.get(id ?? "");
    if (!asked || asked.route !== press.route) return { ok: false, text: "This confirmation was already answered or has expired." };
    this.pending.delete(id);
    if (answer !== "yes") return { ok: true, text: "Kept" };
    const thread = this.deps.registry.get(asked.threadId);
    const tree = thread && this.deps.worktrees.of(thread);
    if (!thread || !tree) return { ok: false, text: "This thread has no worktree any more." };
    try {
      await this.deps.closeThread(thread.id, "/close --discard");
      await removeWorktree(this.machineOf(thread), thread, tree, true);
      await this.deps.registry.worktreeRemoved(thread.id, true);
    } catch (error) {
      this.deps.log.error({ err: error, thread: thread.id }, "could not discard a thread's worktree");
      return { ok: false, text: `Not discarded: ${userMessageOf(error)}` };
    }
    return { ok: true, text: `Closed; worktree and branch ${tree.branch} deleted` };
  }

  private required(thread: ThreadRecord): ThreadWorktree {
    const tree = this.deps.worktrees.of(thread);
    if (!tree) {
      const why = thread.worktree?.removed ? "its worktree was removed by /close" : "it works in the workspace itself (workspaces.isolation: worktree gives new threads their own)";
      throw new CommandError(`This thread has no worktree of its own: ${why}.`);
    }
    return tree;
  }

  private machineOf(thread: ThreadRecord) {
    return this.deps.machines.locate(thread.workspace).machine;
  }
}

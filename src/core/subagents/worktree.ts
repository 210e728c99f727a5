// `isolation: worktree`: each subagent works in its own `git worktree` of the workspace, on a
// branch of its own, so parallel edits never collide. The worktree lives in the repository's
// `.baton/worktrees/` (kept out of git by `.baton/.gitignore`, like files from the chat). When the
// subagent ends, what it left uncommitted is committed on its branch and the worktree removed; the
// branch stays for the host agent to merge, or goes too when it holds no change.
import { posix } from "node:path";
import type { Machine } from "../../agents/machines/index.js";
import { SubagentError } from "../../kernel/errors.js";
import { addWorktree, commitAll, git as runGit, GitError, oneAtATime } from "../git.js";

export interface Worktree {
  /** The worktree's directory on the machine. */
  path: string;
  branch: string;
  /** The commit it started from. */
  base: string;
  /** Where the subagent works: the workspace's place inside the worktree. */
  cwd: string;
}

/** git's own failure, said as a subagent tool's refusal. */
async function git(machine: Machine, cwd: string, args: string[]): Promise<string> {
  try {
    return await runGit(machine, cwd, args);
  } catch (error) {
    throw error instanceof GitError ? new SubagentError(error.userMessage) : error;
  }
}

/** Thread ids, run ids and subagent names are plain already: fit for branch and directory names. */
function branchName(threadId: string, run: string, name: string): string {
  return `baton/${threadId}/${name}-${run}`;
}

/** Creates the subagent's worktree from the workspace's current commit. */
export async function createWorktree(machine: Machine, workspace: string, owner: { threadId: string; run: string; name: string }): Promise<Worktree> {
  let top: string;
  try {
    top = await git(machine, workspace, ["rev-parse", "--show-toplevel"]);
  } catch {
    throw new SubagentError(`isolation: worktree needs a git repository, and \`${workspace}\` is not in one. Use isolation: shared, or run \`git init\` there first.`);
  }
  const base = await git(machine, top, ["rev-parse", "--verify", "HEAD"]).catch(() => {
    throw new SubagentError(`isolation: worktree needs a first commit in \`${top}\` to branch from.`);
  });
  const branch = branchName(owner.threadId, owner.run, owner.name);
  const dir = posix.join(top, ".baton", "worktrees");
  const path = posix.join(dir, `${owner.threadId}-${owner.name}-${owner.run}`);
  // `.baton/` holds Baton's files in the workspace and ignores itself.
  await machine.exec(["sh", "-c", 'mkdir -p "$1" && { [ -e "$2" ] || printf "*\\n" > "$2"; }', "sh", dir, posix.join(top, ".baton", ".gitignore")], top);
  await addWorktree(machine, top, path, branch, base).catch((error: unknown) => {
    throw error instanceof GitError ? new SubagentError(error.userMessage) : error;
  });
  const inside = posix.relative(top, workspace);
  return { path, branch, base, cwd: inside && !inside.startsWith("..") ? posix.join(path, inside) : path };
}

/**
 * Commits what the subagent left on its branch, removes the worktree, and says what changed.
 * The branch is deleted when it holds no change (then `branch` is undefined).
 */
export async function finishWorktree(machine: Machine, workspace: string, tree: Worktree, message: string): Promise<{ branch?: string; files: string[] }> {
  const present = (await machine.exec(["git", "rev-parse", "--git-dir"], tree.path)).code === 0;
  if (present) await commitAll(machine, tree.path, message, "Baton subagent");
  const top = await git(machine, workspace, ["rev-parse", "--show-toplevel"]);
  await oneAtATime(machine, top, async () => {
    if (present) await git(machine, top, ["worktree", "remove", "--force", tree.path]);
    else await machine.exec(["git", "worktree", "prune"], top);
  });
  const files = (await git(machine, top, ["diff", "--name-only", `${tree.base}..${tree.branch}`]).catch(() => "")).split("\n").filter(Boolean);
  if (files.length === 0) {
    await machine.exec(["git", "branch", "-D", tree.branch], top);
    return { files };
  }
  return { branch: tree.branch, files };
}

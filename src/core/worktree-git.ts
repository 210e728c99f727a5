// What /diff, /merge and /close do to a thread's worktree and branch, in git. Each answers with
// what happened or throws a CommandError saying why nothing did; a refused merge changes nothing.
import type { Machine } from "../agents/machines/index.js";
import { CommandError } from "../kernel/errors.js";
import type { ThreadRecord, ThreadWorktree } from "../threads/registry.js";
import { commitAll, git, identityArgs, oneAtATime } from "./git.js";

const COMMITTER = "Baton";
/** At most this many file names in a refusal (the rest are counted). */
const MAX_NAMED_FILES = 10;
/** A push over a slow link may take a while; past this it is reported, not waited for. */
const PUSH_TIMEOUT_MS = 120_000;

export interface FileChange {
  path: string;
  /** Lines added and removed; undefined for a binary file. */
  added?: number;
  removed?: number;
}

/** What the worktree holds against its branch point (uncommitted and new files included). */
export async function worktreeDiff(machine: Machine, tree: ThreadWorktree): Promise<{ base: string; files: FileChange[]; patch: string }> {
  const base = await git(machine, tree.path, ["merge-base", tree.baseBranch, "HEAD"]).catch(() => tree.base);
  const current = await snapshotTree(machine, tree.path);
  const numstat = await git(machine, tree.path, ["diff", "--numstat", "--no-renames", base, current]);
  const patch = await git(machine, tree.path, ["diff", "--no-renames", "--no-color", base, current]);
  const files = numstat
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [added, removed, ...path] = line.split("\t");
      return { path: path.join("\t"), added: added === "-" ? undefined : Number(added), removed: removed === "-" ? undefined : Number(removed) };
    });
  return { base, files, patch };
}

/**
 * The worktree as it is, written as a tree object through a throwaway index: `git diff` then sees
 * new files too, and the agent's own index is not touched.
 */
async function snapshotTree(machine: Machine, dir: string): Promise<string> {
  const script = 'idx=$(mktemp) && cp "$(git rev-parse --git-path index)" "$idx" && GIT_INDEX_FILE="$idx" git add -A && GIT_INDEX_FILE="$idx" git write-tree; s=$?; rm -f "$idx"; exit $s';
  const result = await machine.exec(["sh", "-c", script], dir);
  if (result.code !== 0) throw new CommandError(`Could not read the worktree ${dir}: ${result.stderr.trim().split("\n").at(-1) ?? "git failed"}`);
  return result.stdout.trim();
}

/** Commits what the agent left uncommitted in the worktree, with a message naming the thread. */
export function commitLeftovers(machine: Machine, thread: ThreadRecord, tree: ThreadWorktree, why: string): Promise<boolean> {
  return commitAll(machine, tree.path, `Baton thread ${thread.id}: work left uncommitted (${why})`, COMMITTER);
}

/**
 * Merges the thread's branch into its base branch in the main checkout: only when the checkout is
 * on the base branch, clean, and the merge has no conflict (tested first with `git merge-tree`, so
 * a refusal changes nothing there).
 */
export async function mergeBranch(machine: Machine, thread: ThreadRecord, tree: ThreadWorktree): Promise<string> {
  await commitLeftovers(machine, thread, tree, "/merge");
  const top = tree.repository;
  return oneAtATime(machine, top, async () => {
    const onBranch = (await machine.exec(["git", "symbolic-ref", "-q", "--short", "HEAD"], top)).stdout.trim();
    if (onBranch !== tree.baseBranch) {
      throw new CommandError(
        `Not merged: the main checkout ${top} is on ${onBranch ? `\`${onBranch}\`` : "a detached HEAD"}, not on \`${tree.baseBranch}\`. Check out \`${tree.baseBranch}\` there, then /merge again.`,
      );
    }
    // Staged or not: a tracked file that differs from HEAD.
    const dirty = (await git(machine, top, ["diff", "--name-only", "HEAD"])).split("\n").filter(Boolean);
    if (dirty.length > 0) throw new CommandError(`Not merged: the main checkout ${top} has uncommitted changes (${named(dirty)}). Commit or stash them, then /merge again.`);
    const ahead = Number(await git(machine, top, ["rev-list", "--count", `${tree.baseBranch}..${tree.branch}`]));
    if (ahead === 0) return `Nothing to merge: \`${tree.branch}\` has no commit that \`${tree.baseBranch}\` lacks.`;
    const test = await machine.exec(["git", "merge-tree", "--write-tree", "--name-only", "--no-messages", tree.baseBranch, tree.branch], top);
    if (test.code === 1) {
      const conflicts = test.stdout.trim().split("\n").slice(1).filter(Boolean);
      throw new CommandError(
        `Not merged: \`${tree.branch}\` conflicts with \`${tree.baseBranch}\` in ${named(conflicts)}. Nothing was changed. Ask the agent to rebase its branch on \`${tree.baseBranch}\` and resolve them, then /merge again.`,
      );
    }
    if (test.code !== 0) throw new CommandError(`Not merged: git could not test the merge (${test.stderr.trim().split("\n").at(-1) ?? `exit ${test.code}`}).`);
    const identity = await identityArgs(machine, top, COMMITTER);
    await git(machine, top, [...identity, "merge", "--no-ff", "--no-edit", "-m", `Merge ${tree.branch} (Baton thread ${thread.id})`, tree.branch]);
    const files = (await git(machine, top, ["diff", "--name-only", "HEAD^1", "HEAD"])).split("\n").filter(Boolean);
    return `✅ Merged \`${tree.branch}\` into \`${tree.baseBranch}\` in ${top} (${ahead} commit${ahead === 1 ? "" : "s"}; ${named(files)}).`;
  });
}

/** Removes the worktree (its leftovers committed first, so nothing is lost); with `discard`, the branch too. */
export async function removeWorktree(machine: Machine, thread: ThreadRecord, tree: ThreadWorktree, discard: boolean): Promise<void> {
  const present = (await machine.exec(["git", "rev-parse", "--git-dir"], tree.path)).code === 0;
  if (present && !discard) await commitLeftovers(machine, thread, tree, "/close");
  await oneAtATime(machine, tree.repository, async () => {
    if (present) await git(machine, tree.repository, ["worktree", "remove", "--force", tree.path]);
    else await machine.exec(["git", "worktree", "prune"], tree.repository);
    if (discard) await machine.exec(["git", "branch", "-D", tree.branch], tree.repository);
  });
}

function named(files: string[]): string {
  const shown = files.slice(0, MAX_NAMED_FILES).map((f) => `\`${f}\``);
  const more = files.length - shown.length;
  return `${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""}`;
}

/** The remote /pr pushes to: the base branch's upstream remote, else `origin`, else the only one. */
export async function remoteOf(machine: Machine, tree: ThreadWorktree): Promise<{ name: string; url: string }> {
  const configured = (await machine.exec(["git", "config", `branch.${tree.baseBranch}.remote`], tree.repository)).stdout.trim();
  const remotes = (await git(machine, tree.repository, ["remote"])).split("\n").filter(Boolean);
  const name = configured && remotes.includes(configured) ? configured : remotes.includes("origin") ? "origin" : remotes.length === 1 ? remotes[0] : undefined;
  if (!name)
    throw new CommandError(
      remotes.length === 0
        ? `${tree.repository} has no remote to push to. Add one (git remote add origin <url>), then /pr again.`
        : `${tree.repository} has several remotes and none is \`origin\` or the upstream of \`${tree.baseBranch}\`; set one (git branch --set-upstream-to), then /pr again.`,
    );
  return { name, url: await git(machine, tree.repository, ["remote", "get-url", name]) };
}

/** Pushes the thread's branch to the remote, setting it as the branch's upstream. */
export async function pushBranch(machine: Machine, tree: ThreadWorktree, remote: string): Promise<void> {
  const result = await machine.exec(["git", "push", "--porcelain", "-u", remote, `${tree.branch}:${tree.branch}`], tree.path, { timeoutMs: PUSH_TIMEOUT_MS });
  if (result.code !== 0) {
    const reason =
      result.stderr
        .trim()
        .split("\n")
        .filter((l) => !l.startsWith("hint:"))
        .at(-1) ?? `exit ${result.code ?? "killed"}`;
    throw new CommandError(`Could not push \`${tree.branch}\` to ${remote}: ${reason}`);
  }
}

// Git in a workspace, on whichever machine it is: the commands threads and subagents share to
// make, commit and remove worktrees. Commands that change one repository's worktrees or branches
// run one at a time (`oneAtATime`), keyed by machine and repository.
import type { Machine } from "../agents/machines/index.js";
import { KeyedQueue } from "../kernel/collections.js";
import { BatonError } from "../kernel/errors.js";

/** A git command failed; the message names it, the directory and git's last line of complaint. */
export class GitError extends BatonError {}

const GIT_TIMEOUT_MS = 60_000;

/** Runs git; its trimmed output, or a GitError with git's own reason. */
export async function git(machine: Machine, cwd: string, args: string[]): Promise<string> {
  const result = await machine.exec(["git", ...args], cwd, { timeoutMs: GIT_TIMEOUT_MS });
  if (result.code !== 0) {
    const reason = result.stderr.trim().split("\n").at(-1) || `exit ${result.code ?? "killed"}`;
    throw new GitError(`git ${args[0]} failed in ${cwd}: ${reason}`);
  }
  return result.stdout.trim();
}

/** The repository's top directory, or undefined when `dir` is not in a git repository. */
export async function repositoryTop(machine: Machine, dir: string): Promise<string | undefined> {
  const result = await machine.exec(["git", "rev-parse", "--show-toplevel"], dir, { timeoutMs: GIT_TIMEOUT_MS });
  return result.code === 0 ? result.stdout.trim() : undefined;
}

/**
 * `git worktree add`, `remove`, `prune` and merges of one repository run one at a time: adding a
 * worktree reads every other worktree's admin files, and fails on one that another `add` is still
 * writing ("fatal: failed to read .git/worktrees/<name>/commondir"), which parallel work hits.
 */
const repositoryCommands = new KeyedQueue();

export function oneAtATime<T>(machine: Machine, top: string, op: () => Promise<T>): Promise<T> {
  return repositoryCommands.run(`${machine.name}\0${top}`, op);
}

/** A new worktree at `path` on a new branch from `base` (a commit), serialised with its repository. */
export function addWorktree(machine: Machine, top: string, path: string, branch: string, base: string): Promise<string> {
  return oneAtATime(machine, top, () => git(machine, top, ["worktree", "add", "-b", branch, path, base]));
}

/**
 * Commits everything left in the worktree (new files too) with `message`; false when there was
 * nothing to commit. Where git knows no identity, `fallbackName` at localhost signs it.
 */
export async function commitAll(machine: Machine, dir: string, message: string, fallbackName: string): Promise<boolean> {
  await git(machine, dir, ["add", "-A"]);
  const staged = await machine.exec(["git", "diff", "--cached", "--quiet"], dir);
  if (staged.code !== 1) return false;
  await git(machine, dir, [...(await identityArgs(machine, dir, fallbackName)), "commit", "--no-verify", "-q", "-m", message]);
  return true;
}

/** `-c user.name=… -c user.email=…` when git knows no identity there (a commit would fail), else nothing. */
export async function identityArgs(machine: Machine, dir: string, fallbackName: string): Promise<string[]> {
  const known = (await machine.exec(["git", "config", "user.email"], dir)).stdout.trim();
  return known ? [] : ["-c", `user.name=${fallbackName}`, "-c", "user.email=baton@localhost"];
}

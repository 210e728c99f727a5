// `workspaces.isolation: worktree`: a thread in a git workspace works in a git worktree of its own,
// on a branch `baton/<short thread id>-<slug of its first prompt>`, made at its first prompt from
// the workspace's current branch (or `workspaces.base_branch`). The worktree lives outside the
// repository, under Baton's data dir on the workspace's machine (`worktrees/<repository
// hash>/<thread id>`), so neither the checkout's `git status` nor its build tools ever see it. The thread's events record the worktree,
// so a restart finds it again; one that was deleted behind Baton's back is added again from its
// branch. A workspace that is not a git repository runs as before, and the chat is told once.
import { createHash } from "node:crypto";
import { posix } from "node:path";
import type { Machine, Machines } from "../agents/machines/index.js";
import type { BatonConfig } from "../config/schema.js";
import type { Logger } from "../kernel/log.js";
import { redactSecrets } from "../kernel/secrets.js";
import { megabytes } from "../render/sizes.js";
import type { ThreadRecord, ThreadRegistry, ThreadWorktree } from "../threads/registry.js";
import { addWorktree, git, oneAtATime, repositoryTop } from "./git.js";

type Isolation = "none" | "worktree";

export interface ThreadWorktreeDeps {
  registry: ThreadRegistry;
  machines: Machines;
  /** Read at each call: a reload changes it. */
  config(): BatonConfig;
  /** The isolation a named workspace at this path sets, if one does. */
  namedIsolation(workspace: string): Isolation | undefined;
  log: Logger;
}

const SLUG_MAX_CHARS = 40;
const SHORT_ID_CHARS = 6;
/** A pull request title's length on the forges' own pages. */
const TOPIC_MAX_CHARS = 72;

export class ThreadWorktrees {
  /** Threads whose worktree is being made: a second prompt waits for the first's. */
  private readonly making = new Map<string, Promise<string | undefined>>();
  /** Threads already told that their workspace cannot have a worktree (said once per thread). */
  private readonly told = new Set<string>();

  constructor(private readonly deps: ThreadWorktreeDeps) {}

  /** none or worktree: the thread's binding's, else its named workspace's, else `workspaces.isolation`. */
  isolationOf(thread: ThreadRecord): Isolation {
    const config = this.deps.config();
    const binding = thread.binding ? config.bindings.find((b) => b.match === thread.binding) : undefined;
    return binding?.isolation ?? this.deps.namedIsolation(thread.workspace) ?? config.workspaces.isolation;
  }

  /** The thread's live worktree, if it has one. */
  of(thread: ThreadRecord): ThreadWorktree | undefined {
    return thread.worktree && !thread.worktree.removed ? thread.worktree : undefined;
  }

  /** Where the thread's agent works: its worktree's place for the workspace, else the workspace. */
  workdir(thread: ThreadRecord): string {
    const tree = this.of(thread);
    if (!tree) return thread.workspace;
    return this.deps.machines.format(this.deps.machines.locate(thread.workspace).machine.name, tree.cwd);
  }

  /**
   * Before a thread's first prompt goes to its agent: makes its worktree when isolation asks for
   * one. Returns a note for the chat (said once) when the workspace cannot have one.
   */
  beforePrompt(thread: ThreadRecord, prompt: string): Promise<string | undefined> {
    if (thread.worktree || thread.session || this.told.has(thread.id) || this.isolationOf(thread) !== "worktree") return Promise.resolve(undefined);
    const pending = this.making.get(thread.id);
    if (pending) return pending.then(() => undefined);
    const made = this.make(thread, prompt).finally(() => this.making.delete(thread.id));
    this.making.set(thread.id, made);
    return made;
  }

  /** Before its agent starts: a recorded worktree that is gone from disk is added again from its branch. */
  async ensurePresent(thread: ThreadRecord): Promise<void> {
    const tree = this.of(thread);
    if (!tree) return;
    const { machine } = this.deps.machines.locate(thread.workspace);
    if ((await machine.exec(["git", "rev-parse", "--git-dir"], tree.path)).code === 0) return;
    await oneAtATime(machine, tree.repository, async () => {
      await machine.exec(["git", "worktree", "prune"], tree.repository);
      await git(machine, tree.repository, ["worktree", "add", tree.path, tree.branch]);
    });
    this.deps.log.info({ thread: thread.id, path: tree.path }, "added a thread's missing worktree again from its branch");
  }

  /** For /status: branch, base, commits ahead and behind, uncommitted files, disk use and place. */
  async describe(thread: ThreadRecord): Promise<string | undefined> {
    const tree = thread.worktree;
    if (!tree) return undefined;
    if (tree.removed) return `\`${tree.branch}\` — worktree removed by /close${tree.branchDeleted ? ", branch deleted" : ", branch kept"}`;
    const { machine } = this.deps.machines.locate(thread.workspace);
    const counts = await machine.exec(["git", "rev-list", "--left-right", "--count", `${tree.baseBranch}...HEAD`], tree.path);
    const [behind, ahead] = counts.code === 0 ? counts.stdout.trim().split(/\s+/).map(Number) : [NaN, NaN];
    const status = await machine.exec(["git", "status", "--porcelain"], tree.path);
    const changed = status.code === 0 ? status.stdout.split("\n").filter(Boolean).length : 0;
    const du = await machine.exec(["du", "-sk", tree.path], "/");
    const kib = du.code === 0 ? Number(du.stdout.trim().split(/\s+/)[0]) : NaN;
    const parts = [
      `\`${tree.branch}\` from \`${tree.baseBranch}\``,
      Number.isNaN(ahead) ? "ahead/behind unknown" : `${ahead} ahead, ${behind} behind`,
      changed > 0 ? `${changed} uncommitted` : undefined,
      Number.isNaN(kib) ? undefined : megabytes(kib * 1024),
      `\`${tree.path}\``,
    ];
    return parts.filter(Boolean).join(" · ");
  }

  /**
   * At start: `git worktree prune` in each repository a thread worktree came from, so git forgets
   * worktrees whose directories are gone. Worktrees whose thread is closed stay on disk (they may
   * hold work) and `baton doctor` lists them.
   */
  async pruneAtStart(): Promise<void> {
    const repositories = new Map<string, Machine>();
    for (const thread of this.deps.registry.all()) {
      if (!thread.worktree) continue;
      try {
        repositories.set(thread.worktree.repository, this.deps.machines.locate(thread.workspace).machine);
      } catch {
        // A machine no longer in the config: nothing to prune there from here.
      }
    }
    for (const [top, machine] of repositories) {
      await oneAtATime(machine, top, () => machine.exec(["git", "worktree", "prune"], top)).catch((error: unknown) => this.deps.log.warn({ err: error, repository: top }, "git worktree prune failed"));
    }
  }

  private async make(thread: ThreadRecord, prompt: string): Promise<string | undefined> {
    const { machine, path: dir } = this.deps.machines.locate(thread.workspace);
    const refuse = (why: string) => {
      this.told.add(thread.id);
      return `ℹ️ ${why} This thread works in the workspace itself (workspaces.isolation: worktree is set).`;
    };
    const top = await repositoryTop(machine, dir);
    if (!top) return refuse(`\`${dir}\` is not a git repository, so this thread gets no worktree of its own.`);
    const baseBranch = this.deps.config().workspaces.base_branch ?? (await currentBranch(machine, top));
    if (!baseBranch) return refuse(`\`${top}\` has no branch checked out (a detached HEAD) and workspaces.base_branch is not set, so there is no branch to start from.`);
    const base = await machine.exec(["git", "rev-parse", "--verify", "-q", `${baseBranch}^{commit}`], top);
    if (base.code !== 0) return refuse(`\`${top}\` has no commit on \`${baseBranch}\` to branch from.`);
    // On another machine, under Baton's data dir there (the agent runs there, and so does git).
    const path = posix.join(await machine.dataDir(), "worktrees", repositoryKey(machine, top), thread.id);
    const branch = branchName(thread.id, redactSecrets(prompt));
    await addWorktree(machine, top, path, branch, base.stdout.trim());
    const inside = posix.relative(top, dir);
    const cwd = inside && !inside.startsWith("..") ? posix.join(path, inside) : path;
    const topic = redactSecrets(prompt.trim().split("\n")[0]).slice(0, TOPIC_MAX_CHARS) || undefined;
    await this.deps.registry.recordWorktree(thread.id, { path, branch, base: base.stdout.trim(), baseBranch, repository: top, cwd, topic });
    this.deps.log.info({ thread: thread.id, path, branch }, "made a thread's worktree");
    return undefined;
  }
}

async function currentBranch(machine: Machine, top: string): Promise<string | undefined> {
  const result = await machine.exec(["git", "symbolic-ref", "-q", "--short", "HEAD"], top);
  return result.code === 0 ? result.stdout.trim() : undefined;
}

/** One directory per repository under the data dir: a hash of the machine and its top directory. */
function repositoryKey(machine: Machine, top: string): string {
  return createHash("sha256").update(`${machine.name}\0${top}`).digest("hex").slice(0, 12);
}

/** `baton/<short thread id>-<slug of the first prompt>`: unique by the thread id, readable by the slug. */
function branchName(threadId: string, prompt: string): string {
  const short = threadId.replace(/^th_/, "").slice(0, SHORT_ID_CHARS);
  const slug = prompt
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+/, "")
    .slice(0, SLUG_MAX_CHARS)
    .replace(/-+$/, "");
  return slug ? `baton/${short}-${slug}` : `baton/${short}`;
}

// `baton doctor`: thread worktrees under <data_dir>/worktrees whose thread is gone or closed. They
// may hold work nobody merged, so Baton never deletes them by itself; the doctor names each with
// its branch and the command that removes it.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseThreadEvent } from "../threads/events.js";

interface WorktreeCheck {
  area: string;
  status: "ok" | "info" | "warn";
  message: string;
}

/** Thread worktrees without an open thread, from the thread log in the data dir. */
export function worktreeChecks(dataDir: string, threadsElsewhere: boolean): WorktreeCheck[] {
  const root = join(dataDir, "worktrees");
  const dirs = existsSync(root) ? readdirSync(root).flatMap((repo) => readdirSync(join(root, repo)).map((thread) => ({ path: join(root, repo, thread), thread }))) : [];
  if (dirs.length === 0) return [];
  if (threadsElsewhere)
    return [
      {
        area: "worktrees",
        status: "info",
        message: `${dirs.length} thread worktree${dirs.length === 1 ? "" : "s"} in ${root}; threads live in PostgreSQL (store.url), so which are orphaned is not checked here`,
      },
    ];
  const live = liveWorktrees(join(dataDir, "threads", "events.jsonl"));
  const orphans = dirs.filter((d) => !live.has(d.path));
  if (orphans.length === 0) return [{ area: "worktrees", status: "ok", message: `${dirs.length} thread worktree${dirs.length === 1 ? "" : "s"}, each of an open thread` }];
  return orphans.map((o) => ({
    area: "worktrees",
    status: "warn",
    message: `${o.path} has no open thread (${o.thread}); remove it with: git -C ${repositoryOf(o.path) ?? "<repository>"} worktree remove ${o.path} (its branch stays)`,
  }));
}

/** Paths of the worktrees of open threads, replaying the thread log's worktree and close events. */
function liveWorktrees(logPath: string): Set<string> {
  const byThread = new Map<string, string>();
  const text = existsSync(logPath) ? readFileSync(logPath, "utf8") : "";
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const parsed = parseThreadEvent(value);
    if (!("event" in parsed)) continue;
    const e = parsed.event;
    if (e.type === "worktree_created") byThread.set(e.thread, e.path);
    else if (e.type === "worktree_removed" || e.type === "thread_closed") byThread.delete(e.thread);
  }
  return new Set(byThread.values());
}

/** The main checkout a worktree belongs to, from its `.git` file (`gitdir: <repo>/.git/worktrees/<name>`). */
function repositoryOf(path: string): string | undefined {
  try {
    const gitdir = /^gitdir:\s*(.+)$/m.exec(readFileSync(join(path, ".git"), "utf8"))?.[1]?.trim();
    return gitdir ? dirname(dirname(dirname(gitdir))) : undefined;
  } catch {
    return undefined;
  }
}

// workspaces.isolation: worktree — each thread works in a git worktree of its own, on a branch
// named after it and its first prompt, kept under the data dir; the main checkout stays untouched,
// and a restart finds the worktree again. A workspace that is no repository runs as before.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { waitUntil } from "../../support/harness.js";
import { bootBaton, cleanup, git, gitRepo, stopKeeping, tempDir, TURN_MS } from "./helpers.js";

vi.setConfig({ testTimeout: 180_000 });
afterEach(cleanup);

describe("a thread, a worktree", () => {
  it("gives two threads their own worktrees and branches; the main checkout is untouched", async () => {
    const repo = gitRepo();
    const { platform, core, baton } = await bootBaton({ cwd: repo });
    const [one, two] = [platform.route("one"), platform.route("two")];
    await Promise.all([platform.say(one, "demo:write notes.txt from thread one"), platform.say(two, "demo:write notes.txt from thread two")]);
    await platform.waitFor(one, /Wrote notes\.txt/, TURN_MS);
    await platform.waitFor(two, /Wrote notes\.txt/, TURN_MS);
    const [a, b] = [core.registry.threadForRoute(one)!, core.registry.threadForRoute(two)!];
    expect(a.worktree!.branch).toBe(`baton/${a.id.slice(3, 9)}-demo-write-notes-txt-from-thread-one`);
    expect(a.worktree!.path).toBe(join(baton.dataDir, "worktrees", a.worktree!.path.split("/").at(-2)!, a.id));
    expect(a.worktree!.path).not.toBe(b.worktree!.path);
    expect(a.worktree!.baseBranch).toBe("main");
    expect(readFileSync(join(a.worktree!.path, "notes.txt"), "utf8")).toBe("from thread one\n");
    expect(readFileSync(join(b.worktree!.path, "notes.txt"), "utf8")).toBe("from thread two\n");
    expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("first line\n");
    expect(git(repo, "status", "--porcelain")).toBe("");
    expect(git(repo, "branch", "--show-current")).toBe("main");
    expect(git(repo, "worktree", "list").split("\n")).toHaveLength(3);
  });

  it("finds the worktree again after a restart, and the session continues there", async () => {
    const repo = gitRepo();
    const dataDir = tempDir("baton-wt-data-");
    const first = await bootBaton({ cwd: repo, dataDir });
    const route = first.platform.route("r");
    await first.platform.say(route, "demo:write notes.txt before the restart");
    await first.platform.waitFor(route, /Wrote notes\.txt/, TURN_MS);
    const before = first.core.registry.threadForRoute(route)!;
    const { path, branch } = before.worktree!;
    const session = before.session;
    await stopKeeping(first.baton);

    const second = await bootBaton({ cwd: repo, dataDir });
    const thread = second.core.registry.threadForRoute(route)!;
    expect(thread.worktree).toMatchObject({ path, branch });
    await second.platform.say(route, "demo:write more.txt after the restart");
    await second.platform.waitFor(route, /Wrote more\.txt/, TURN_MS);
    expect(readFileSync(join(path, "more.txt"), "utf8")).toBe("after the restart\n");
    expect(readFileSync(join(path, "notes.txt"), "utf8")).toBe("before the restart\n");
    expect(second.core.registry.get(thread.id)!.session).toBe(session);
    expect(existsSync(join(repo, "more.txt"))).toBe(false);
  });

  it("runs a workspace that is not a git repository as before, and says so once", async () => {
    const dir = tempDir("baton-wt-plain-");
    const { platform, core } = await bootBaton({ cwd: dir });
    const route = platform.route("plain");
    await platform.say(route, "demo:write a.txt one");
    await platform.waitFor(route, /Wrote a\.txt/, TURN_MS);
    await platform.say(route, "demo:write b.txt two");
    await platform.waitFor(route, /Wrote b\.txt/, TURN_MS);
    expect(platform.transcript(route).match(/is not a git repository/g)).toHaveLength(1);
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("one\n");
    expect(core.registry.threadForRoute(route)!.worktree).toBeUndefined();
  });

  it("gives a thread started by a schedule its worktree too", async () => {
    const repo = gitRepo();
    const route = "test:sched";
    const { platform, core } = await bootBaton({ cwd: repo, config: { schedules: [{ route, cron: "*/1 * * * * *", prompt: "demo:write notes.txt scheduled" }] } });
    await platform.waitFor(route, /Wrote notes\.txt/, TURN_MS);
    const tree = core.registry.threadForRoute(route)!.worktree!;
    expect(tree.branch).toMatch(/^baton\/[0-9a-f]{6}-demo-write-notes-txt-scheduled$/);
    // The schedule runs every second and rewrites the file: read it between two writes.
    await waitUntil(() => readFileSync(join(tree.path, "notes.txt"), "utf8") === "scheduled\n", TURN_MS);
    expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("first line\n");
  });

  it("adds a worktree deleted behind Baton's back again from its branch when the agent next starts", async () => {
    const repo = gitRepo();
    const dataDir = tempDir("baton-wt-data-");
    const first = await bootBaton({ cwd: repo, dataDir });
    const route = first.platform.route("gone");
    await first.platform.say(route, "demo:write kept.txt committed work");
    await first.platform.waitFor(route, /Wrote kept\.txt/, TURN_MS);
    const { path } = first.core.registry.threadForRoute(route)!.worktree!;
    git(path, "add", "kept.txt");
    git(path, "commit", "-q", "-m", "work");
    await stopKeeping(first.baton);
    rmSync(path, { recursive: true, force: true });

    const second = await bootBaton({ cwd: repo, dataDir });
    await second.platform.say(route, "demo:write again.txt back");
    await second.platform.waitFor(route, /Wrote again\.txt/, TURN_MS);
    expect(readFileSync(join(path, "kept.txt"), "utf8")).toBe("committed work\n");
    expect(readFileSync(join(path, "again.txt"), "utf8")).toBe("back\n");
  });

  it("makes the worktree when the agent starts before the first prompt (/mode on a new thread)", async () => {
    const repo = gitRepo();
    const { platform, core } = await bootBaton({ cwd: repo });
    const route = platform.route("mode-first");
    await platform.say(route, "/mode");
    await platform.waitFor(route, /Code/, TURN_MS);
    const tree = core.registry.threadForRoute(route)!.worktree!;
    expect(tree.branch).toMatch(/^baton\/[0-9a-f]{6}$/);
    await platform.say(route, "demo:write notes.txt after mode");
    await platform.waitFor(route, /Wrote notes\.txt/, TURN_MS);
    expect(readFileSync(join(tree.path, "notes.txt"), "utf8")).toBe("after mode\n");
    expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("first line\n");
  });
});

// Subagents of a thread with its own worktree start from the thread's branch: what the thread's
// agent wrote is in their worktrees, and their branches sit on top of the thread's.
import { afterEach, describe, expect, it, vi } from "vitest";
import { bootBaton, cleanup, git, gitRepo, TURN_MS } from "./helpers.js";

vi.setConfig({ testTimeout: 240_000 });
afterEach(cleanup);

describe("subagents of a worktree thread", () => {
  it("branch from the thread's branch, not from the main checkout", async () => {
    const repo = gitRepo();
    const { platform, core } = await bootBaton({ cwd: repo });
    const route = platform.route("sub");
    await platform.say(route, "demo:write plan.txt the thread's own file");
    await platform.waitFor(route, /Wrote plan\.txt/, TURN_MS);
    const tree = core.registry.threadForRoute(route)!.worktree!;
    git(tree.path, "add", "plan.txt");
    git(tree.path, "commit", "-q", "-m", "thread work");

    await platform.say(route, `demo:subagents ${JSON.stringify({ mode: "parallel", isolation: "worktree", subagents: [{ name: "alpha", task: "demo:write Write a file" }] })}`);
    await platform.waitFor(route, /Subagent reports:/, 2 * TURN_MS);
    const [alpha] = core.registry.threadForRoute(route)!.subagents;
    expect(alpha.branch).toBeDefined();
    expect(git(repo, "show", `${alpha.branch}:plan.txt`)).toBe("the thread's own file");
    expect(git(repo, "merge-base", "--is-ancestor", tree.branch, alpha.branch!)).toBe("");
    expect(git(repo, "status", "--porcelain")).toBe("");
  });
});

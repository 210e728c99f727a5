// isolation: worktree — each subagent works in a git worktree of its own on its own branch; when
// it ends, its changes are committed there, the worktree is removed and the branch named in its
// report (a subagent that changed nothing leaves no branch).
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { bootSubagents, cleanup, gitRepo, MULTI_AGENT_MS } from "./helpers.js";

vi.setConfig({ testTimeout: 240_000 });
afterEach(cleanup);

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();

describe("worktree isolation", () => {
  it("creates a worktree per subagent, commits its changes on its branch, and removes the worktrees", async () => {
    const repo = gitRepo();
    const { platform, core, baton } = await bootSubagents({ cwd: repo });
    const route = platform.route("wt");
    const args = {
      mode: "parallel",
      isolation: "worktree",
      subagents: [
        { name: "alpha", task: "demo:write Write a file" },
        { name: "beta", task: "demo:write Write another" },
        { name: "gamma", task: "Look only" },
      ],
    };
    await platform.say(route, `demo:subagents ${JSON.stringify(args)}`);
    const answer = await platform.waitFor(route, /Subagent reports:/, MULTI_AGENT_MS);
    const thread = core.registry.threadForRoute(route)!;
    const [alpha, beta, gamma] = thread.subagents;
    expect(alpha.branch).toMatch(new RegExp(`^baton/${thread.id}/alpha-[0-9a-f]{6}$`));
    expect(answer.text).toContain(`- alpha (done): alpha answers “Write a file” (wrote alpha.txt). [branch ${alpha.branch}; files alpha.txt]`);
    expect(answer.text).toContain(`[branch ${beta.branch}; files beta.txt]`);
    expect(gamma.branch).toBeUndefined();

    // Each wrote in its own worktree: the files are on the branches, not in the workspace.
    expect(git(repo, "show", `${alpha.branch}:alpha.txt`)).toBe("written by alpha");
    expect(git(repo, "show", `${beta.branch}:beta.txt`)).toBe("written by beta");
    expect(() => git(repo, "show", `${alpha.branch}:beta.txt`)).toThrow();
    expect(existsSync(join(repo, "alpha.txt"))).toBe(false);
    expect(git(repo, "log", "-1", "--format=%s", alpha.branch!)).toBe("Subagent alpha: demo:write Write a file");

    // The worktrees were created (in the events) and are gone now; gamma's empty branch too.
    const events = readFileSync(join(baton.dataDir, "threads", "events.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const created = events.filter((e) => e.type === "subagent_updated" && e.worktree).map((e) => e.worktree.path as string);
    // A subagent whose worktree is missing here failed to make it: the answer says why.
    expect(created.sort(), answer.text).toEqual(["alpha", "beta", "gamma"].map((n) => join(repo, ".baton", "worktrees", `${thread.id}-${n}-${alpha.run}`)));
    expect(git(repo, "worktree", "list").split("\n")).toHaveLength(1);
    expect(readdirSync(join(repo, ".baton", "worktrees"))).toEqual([]);
    expect(
      git(repo, "branch", "--list", "baton/*")
        .split("\n")
        .map((b) => b.trim())
        .sort(),
    ).toEqual([alpha.branch, beta.branch].sort());
    expect(git(repo, "status", "--porcelain")).toBe("");
  });

  it("refuses worktree isolation outside a git repository, saying what would work", async () => {
    const { platform } = await bootSubagents();
    const route = platform.route("nogit");
    await platform.say(route, `demo:subagents ${JSON.stringify({ mode: "parallel", isolation: "worktree", subagents: [{ name: "a", task: "x" }] })}`);
    const refused = await platform.waitFor(route, /initialize_subagents error:/, MULTI_AGENT_MS);
    expect(refused.text).toMatch(/isolation: worktree needs a git repository with a first commit, and `[^`]+` is not one .*Use isolation: shared, or commit there first\./);
  });
});

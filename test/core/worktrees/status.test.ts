// /status shows a thread's branch, ahead/behind and disk use; `baton doctor` names a worktree
// whose thread is closed; a start prunes what git still lists of a worktree deleted from disk.
import { spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { bootBaton, cleanup, git, gitRepo, stopKeeping, tempDir, TURN_MS } from "./helpers.js";

vi.setConfig({ testTimeout: 180_000 });
afterEach(cleanup);

describe("worktree status", () => {
  it("/status shows branch, ahead/behind, uncommitted files and disk use; doctor lists a closed thread's worktree", async () => {
    const repo = gitRepo();
    const dataDir = tempDir("baton-wt-data-");
    const { platform, core, baton } = await bootBaton({ cwd: repo, dataDir });
    const route = platform.route("st");
    await platform.say(route, "demo:write notes.txt changed");
    await platform.waitFor(route, /Wrote notes\.txt/, TURN_MS);
    const thread = core.registry.threadForRoute(route)!;
    const tree = thread.worktree!;
    // The base branch moves on: the thread's branch is one behind.
    writeFileSync(join(repo, "other.txt"), "x\n");
    git(repo, "add", "other.txt");
    git(repo, "commit", "-q", "-m", "second");

    await platform.say(route, "/status");
    const status = await platform.waitFor(route, /\*\*Worktree:\*\*/, TURN_MS);
    expect(status.text).toMatch(new RegExp(`\\*\\*Worktree:\\*\\* \`${tree.branch}\` from \`main\` · 0 ahead, 1 behind · 1 uncommitted · [\\d.]+ (KB|MB) · \`${tree.path}\``));

    await core.threads.close(thread.id, "test");
    await stopKeeping(baton);
    const config = join(dataDir, "..", `${thread.id}.yaml`);
    writeFileSync(config, "platforms: {}\n");
    const run = spawnSync(process.execPath, ["bin/baton.js", "doctor", "--config", config, "--data-dir", dataDir, "--json"], { encoding: "utf8" });
    const report = JSON.parse(run.stdout) as { checks: Array<{ area: string; status: string; message: string }> };
    const worktrees = report.checks.filter((c) => c.area === "worktrees");
    expect(worktrees).toEqual([
      { area: "worktrees", status: "warn", message: `${tree.path} has no open thread (${thread.id}); remove it with: git -C ${repo} worktree remove ${tree.path} (its branch stays)` },
    ]);
    rmSync(config);
  });

  it("prunes at start what git lists of a worktree deleted from disk", async () => {
    const repo = gitRepo();
    const dataDir = tempDir("baton-wt-data-");
    const first = await bootBaton({ cwd: repo, dataDir });
    const route = first.platform.route("p");
    await first.platform.say(route, "demo:write a.txt a");
    await first.platform.waitFor(route, /Wrote a\.txt/, TURN_MS);
    const thread = first.core.registry.threadForRoute(route)!;
    await first.core.threads.close(thread.id, "test");
    await stopKeeping(first.baton);
    rmSync(thread.worktree!.path, { recursive: true, force: true });
    expect(git(repo, "worktree", "list").split("\n")).toHaveLength(2);
    await bootBaton({ cwd: repo, dataDir });
    expect(git(repo, "worktree", "list").split("\n")).toHaveLength(1);
    expect(git(repo, "branch", "--list", thread.worktree!.branch)).not.toBe("");
  });
});

// Subagents of a thread on another machine: they run there like its agent, through the same
// OpenSSH connection; the agent there reaches Baton's MCP tools through the reverse tunnel with
// its own token; worktrees are made and removed there.
import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, it, vi } from "vitest";
import { removeTempDirs } from "../../pickup/helpers.js";
import { sshdAvailable } from "../../support/sshd.js";
import { demoSessionFiles, startMachineWorld, stopMachineWorlds } from "./helpers.js";

vi.setConfig({ testTimeout: 240_000 });

/** The thread's agent and two subagents, each over ssh: generous on a shared machine. */
const MULTI_AGENT_MS = 90_000;

afterEach(async () => {
  await stopMachineWorlds();
  removeTempDirs();
});

const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();

describe.skipIf(!sshdAvailable())("subagents on another machine", () => {
  it("run there in worktrees of the remote repository and report back into the agent's answer", async () => {
    const { platform, route, baton, remoteWorkspace, remoteDataDir } = await startMachineWorld();
    git(remoteWorkspace, "init", "-q");
    git(remoteWorkspace, "commit", "-q", "--allow-empty", "-m", "first");
    await platform.say(route, "/workspace --switch build:api");
    await platform.waitFor(route, /New thread/);
    const args = {
      mode: "parallel",
      isolation: "worktree",
      subagents: [
        { name: "alpha", task: "demo:write Write a file" },
        { name: "beta", task: "Name a fruit" },
      ],
    };
    await platform.say(route, `demo:subagents ${JSON.stringify(args)}`);
    const answer = await platform.waitFor(route, /Subagent reports:/, MULTI_AGENT_MS);
    const thread = baton.daemon.core.registry.threadForRoute(route)!;
    const [alpha, beta] = thread.subagents;
    expect(answer.text).toContain(`- alpha (done): alpha answers “Write a file” (wrote alpha.txt). [branch ${alpha.branch}; files alpha.txt]`);
    expect(answer.text).toContain("- beta (done): beta answers “Name a fruit”.");
    expect(git(remoteWorkspace, "show", `${alpha.branch}:alpha.txt`)).toBe("written by alpha");
    expect(git(remoteWorkspace, "worktree", "list").split("\n")).toHaveLength(1);
    // Their sessions are in that machine's store, beside the thread's own.
    expect(demoSessionFiles(remoteDataDir).sort()).toEqual([thread.session, alpha.session, beta.session].map((s) => `${s}.jsonl`).sort());
    expect(demoSessionFiles(baton.dataDir)).toEqual([]);
  });
});

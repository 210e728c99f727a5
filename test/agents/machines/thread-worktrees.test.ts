// A thread worktree on another machine: made there (under Baton's data dir on that machine) from
// the remote repository, the agent runs in it over ssh, /diff and /merge work there too.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { removeTempDirs } from "../../pickup/helpers.js";
import { sshdAvailable } from "../../support/sshd.js";
import { startMachineWorld, stopMachineWorlds } from "./helpers.js";

vi.setConfig({ testTimeout: 240_000 });
const TURN_MS = 90_000;

afterEach(async () => {
  await stopMachineWorlds();
  removeTempDirs();
});

const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();

describe.skipIf(!sshdAvailable())("thread worktrees on another machine", () => {
  it("are made under that machine's data dir; the agent writes there; /diff and /merge work over ssh", async () => {
    const { platform, route, baton, remoteWorkspace, remoteDataDir } = await startMachineWorld({ config: { workspaces: { roots: [tmpdir()], default: tmpdir(), isolation: "worktree" } } });
    git(remoteWorkspace, "init", "-q", "-b", "main");
    git(remoteWorkspace, "commit", "-q", "--allow-empty", "-m", "first");
    await platform.say(route, "/workspace --switch build:api");
    await platform.waitFor(route, /New thread/);
    await platform.say(route, "demo:write notes.txt written over ssh");
    await platform.waitFor(route, /Wrote notes\.txt/, TURN_MS);
    const tree = baton.daemon.core.registry.threadForRoute(route)!.worktree!;
    expect(tree.path.startsWith(join(remoteDataDir, "worktrees"))).toBe(true);
    expect(readFileSync(join(tree.path, "notes.txt"), "utf8")).toBe("written over ssh\n");
    expect(existsSync(join(remoteWorkspace, "notes.txt"))).toBe(false);

    await platform.say(route, "/diff");
    await platform.waitFor(route, /`notes\.txt` \+1 −0/, TURN_MS);
    await platform.say(route, "/merge");
    await platform.waitFor(route, /Merged `baton\//, TURN_MS);
    expect(git(remoteWorkspace, "show", "main:notes.txt")).toBe("written over ssh");
  });
});

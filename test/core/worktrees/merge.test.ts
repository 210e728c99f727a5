// /diff, /merge and /close on thread worktrees: each thread's diff shows only its own change; a
// clean merge lands on the base branch, a conflicting one names the file and changes nothing; /close
// keeps the branch, /close --discard deletes it after its confirmation button.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { bootBaton, cleanup, git, gitRepo, TURN_MS } from "./helpers.js";

vi.setConfig({ testTimeout: 180_000 });
afterEach(cleanup);

describe("/diff and /merge", () => {
  it("diffs each thread against its branch point, merges a clean branch and refuses a conflicting one untouched", async () => {
    const repo = gitRepo();
    const { platform, core } = await bootBaton({ cwd: repo });
    const [one, two] = [platform.route("one"), platform.route("two")];
    await platform.say(one, "demo:write notes.txt from thread one");
    await platform.say(two, "demo:write notes.txt from thread two");
    await platform.waitFor(one, /Wrote notes\.txt/, TURN_MS);
    await platform.waitFor(two, /Wrote notes\.txt/, TURN_MS);
    // A new file, uncommitted, counts too.
    writeFileSync(join(core.registry.threadForRoute(two)!.worktree!.path, "extra.txt"), "x\n");

    await platform.say(one, "/diff");
    const diffOne = await platform.waitFor(one, /against `main`/, TURN_MS);
    expect(diffOne.text).toContain("1 file, +1 −1");
    expect(diffOne.text).toContain("`notes.txt` +1 −1");
    expect(diffOne.text).toContain("+from thread one");
    expect(diffOne.text).not.toContain("thread two");
    await platform.say(two, "/diff");
    const diffTwo = await platform.waitFor(two, /against `main`/, TURN_MS);
    expect(diffTwo.text).toContain("2 files, +2 −1");
    expect(diffTwo.text).toContain("`extra.txt` +1 −0");
    expect(diffTwo.text).not.toContain("thread one");

    await platform.say(one, "/merge");
    await platform.waitFor(one, /Merged `baton\/[0-9a-f]{6}-demo-write-notes-txt-from-thread-one` into `main`/, TURN_MS);
    expect(git(repo, "show", "main:notes.txt")).toBe("from thread one");
    expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("from thread one\n");
    expect(git(repo, "log", "-1", "--format=%s", "main^2")).toMatch(/^Baton thread th_[0-9a-f]+: work left uncommitted \(\/merge\)$/);

    const head = git(repo, "rev-parse", "main");
    await platform.say(two, "/merge");
    const refused = await platform.waitFor(two, /Not merged/, TURN_MS);
    expect(refused.text).toContain("conflicts with `main` in `notes.txt`");
    expect(refused.text).not.toContain("extra.txt");
    expect(git(repo, "rev-parse", "main")).toBe(head);
    expect(git(repo, "status", "--porcelain")).toBe("");
    expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("from thread one\n");
  });

  it("refuses to merge into a checkout with uncommitted changes, naming them", async () => {
    const repo = gitRepo();
    const { platform } = await bootBaton({ cwd: repo });
    const route = platform.route("dirty");
    await platform.say(route, "demo:write other.txt hello");
    await platform.waitFor(route, /Wrote other\.txt/, TURN_MS);
    writeFileSync(join(repo, "notes.txt"), "edited by hand\n");
    await platform.say(route, "/merge");
    const refused = await platform.waitFor(route, /Not merged/, TURN_MS);
    expect(refused.text).toContain("has uncommitted changes (`notes.txt`)");
    expect(existsSync(join(repo, "other.txt"))).toBe(false);
  });

  it("sends a long patch as a file", async () => {
    const repo = gitRepo();
    const { platform } = await bootBaton({ cwd: repo });
    const route = platform.route("long");
    await platform.say(route, `demo:write big.txt ${"a long line of text that goes on. ".repeat(60)}`);
    await platform.waitFor(route, /Wrote big\.txt/, TURN_MS);
    await platform.say(route, "/diff");
    await platform.waitFor(route, /\[upload .*\.patch\]/, TURN_MS);
    const upload = platform.uploads.find((u) => u.route === route)!;
    expect(upload.data.toString()).toContain("+++ b/big.txt");
    expect(platform.transcript(route)).toContain("`big.txt` +1 −0");
  });
});

describe("/close", () => {
  it("removes the worktree and keeps the branch; --discard deletes both after its button", async () => {
    const repo = gitRepo();
    const { platform, core } = await bootBaton({ cwd: repo });
    const [keep, drop] = [platform.route("keep"), platform.route("drop")];
    await platform.say(keep, "demo:write kept.txt kept");
    await platform.say(drop, "demo:write dropped.txt dropped");
    await platform.waitFor(keep, /Wrote kept\.txt/, TURN_MS);
    await platform.waitFor(drop, /Wrote dropped\.txt/, TURN_MS);
    const kept = core.registry.threadForRoute(keep)!.worktree!;
    const dropped = core.registry.threadForRoute(drop)!.worktree!;

    await platform.say(keep, "/close");
    await platform.waitFor(keep, /the branch `baton\/.*` stays/, TURN_MS);
    expect(existsSync(kept.path)).toBe(false);
    expect(git(repo, "show", `${kept.branch}:kept.txt`)).toBe("kept");

    await platform.say(drop, "/close --discard");
    const ask = await platform.waitFor(drop, /cannot be undone/, TURN_MS);
    expect(existsSync(dropped.path)).toBe(true);
    const outcome = await platform.press(drop, ask.buttons![0][0].id);
    expect(outcome).toMatchObject({ ok: true });
    expect(existsSync(dropped.path)).toBe(false);
    expect(git(repo, "branch", "--list", dropped.branch)).toBe("");
    expect(git(repo, "worktree", "list").split("\n")).toHaveLength(1);
    expect(core.registry.threadForRoute(drop)).toBeUndefined();
  });
});

// A thread on another machine, end to end through a real sshd on loopback: the demo agent runs
// there over `ssh -T` with ACP on the session's stdio, its session lands in that machine's store,
// /session and briefs read that store, and a file from the chat reaches the remote workspace.
import { linkSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { getPriority } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { terminalDemoSession, tempDir, removeTempDirs } from "../../pickup/helpers.js";
import { sshdAvailable } from "../../support/sshd.js";
import { BATON_BIN, demoSessionFiles, REMOTE_TURN_MS, startMachineWorld, stopMachineWorlds } from "./helpers.js";

vi.setConfig({ testTimeout: 120_000 });

afterEach(async () => {
  await stopMachineWorlds();
  removeTempDirs();
});

describe.skipIf(!sshdAvailable())("a thread on another machine", () => {
  it("is answered by the demo agent running there through ssh; /status shows the machine; the session is in that machine's store", async () => {
    const { platform, route, baton, remoteWorkspace, remoteDataDir, sshd } = await startMachineWorld();
    await platform.say(route, "/workspace --switch build:api");
    await platform.waitFor(route, new RegExp(`New thread \`th_\\w+\` in \`build:${remoteWorkspace}\``));

    await platform.say(route, "hello from the chat");
    const reply = await platform.waitFor(route, /Turn 1 of session ([0-9a-f-]{36}): you said "hello from the chat"/, REMOTE_TURN_MS);
    const session = /session ([0-9a-f-]{36})/.exec(reply.text)![1];
    // The agent ran there: its store on the build machine has the session, the daemon's has none.
    expect(demoSessionFiles(remoteDataDir)).toEqual([`${session}.jsonl`]);
    expect(demoSessionFiles(baton.dataDir)).toEqual([]);
    // ssh carries Baton's own traffic: it keeps Baton's CPU priority (agents.nice lowers local agents only).
    expect(getPriority(baton.daemon.core.supervisor.host(baton.daemon.core.registry.threadForRoute(route)!.id)!.pid!)).toBe(getPriority());
    expect(JSON.parse(readFileSync(join(remoteDataDir, "demo-agent", "sessions", `${session}.jsonl`), "utf8").split("\n")[0])).toMatchObject({ cwd: remoteWorkspace });

    // The turn ends after its last words (usage is recorded then): /status once it has.
    await baton.daemon.core.supervisor.drained(baton.daemon.core.registry.threadForRoute(route)!.id);
    await platform.say(route, "/status");
    const status = await platform.waitFor(route, /\*\*Machine:\*\*/);
    expect(status.text).toContain(`**Workspace:** \`build:${remoteWorkspace}\``);
    expect(status.text).toContain(`**Machine:** build (${sshd.destination}:${sshd.port})`);
    expect(status.text).toContain("**Host:** idle");

    // The same connection serves the next turn, and the session continues.
    await platform.say(route, "recall");
    await platform.waitFor(route, new RegExp(`Earlier prompts of session ${session}:\\n1\\. hello from the chat`), REMOTE_TURN_MS);

    // Approvals of the agent there come to the chat, as for a local agent.
    await platform.say(route, "demo:permission");
    const request = await platform.waitFor(route, (m) => !!m.buttons, REMOTE_TURN_MS);
    expect(request.text).toContain("rm -rf build/");
    expect(await platform.press(route, request.buttons![0][0].id)).toEqual({ ok: true, text: "Allow once" });
    await platform.waitFor(route, /Permission answer: allow-once\./, REMOTE_TURN_MS);

    // /new with a workspace on the machine, and a plain /workspace listing its roots.
    await platform.say(route, "/new build:~/code/api");
    await platform.waitFor(route, new RegExp(`New thread \`th_\\w+\` with Baton demo agent in \`build:${remoteWorkspace}\``));
    await platform.say(route, "/workspace");
    const list = await platform.waitFor(route, /\*\*Workspaces\*\*/);
    expect(list.text).toContain("**build:** `build:~/code`");
    await platform.say(route, "/workspace --switch build:/nowhere");
    await platform.waitFor(route, /`\/nowhere` is not an existing directory on build\./);
    await platform.say(route, "/workspace --switch build:/tmp");
    await platform.waitFor(route, /`build:\/tmp` is outside the allowed workspace roots on build \(~\/code\)\. Add it to machines\.build\.roots/);
  });

  it("sends a file from the chat into the remote workspace, where the agent reads it", async () => {
    const { platform, route, remoteWorkspace } = await startMachineWorld();
    const local = join(tempDir("baton-chatfile-"), "notes.txt");
    writeFileSync(local, "numbers from the chat: 4 8 15\n");
    await platform.say(route, "/workspace --switch build:api");
    await platform.waitFor(route, /New thread/);
    await platform.say(route, "demo:read", undefined, { files: [{ name: "notes.txt", path: local, size: 31, mimeType: "text/plain" }] });
    const reply = await platform.waitFor(route, /Read (\S+): numbers from the chat: 4 8 15/, REMOTE_TURN_MS);
    const there = /Read (\S+):/.exec(reply.text)![1];
    // The agent on build read its own copy, inside the workspace, kept out of git.
    expect(there.startsWith(`${join(remoteWorkspace, ".baton", "inbox")}/`)).toBe(true);
    expect(there.endsWith("-notes.txt")).toBe(true);
    expect(readdirSync(join(remoteWorkspace, ".baton", "inbox"))).toHaveLength(1);
    expect(readFileSync(join(remoteWorkspace, ".baton", ".gitignore"), "utf8")).toBe("*\n");
  });

  it("a binding names a workspace on the machine; files of it come into the chat (/file, the agent's link), never one outside it", async () => {
    const { platform, route, remoteWorkspace } = await startMachineWorld({ config: { bindings: [{ match: "test:*", workspace: "build:api" }] } });
    const outside = join(tempDir("baton-remote-outside-"), "secret.txt");
    writeFileSync(outside, "not for the chat\n");
    writeFileSync(join(remoteWorkspace, "report.md"), "# Report from build\n");
    symlinkSync(outside, join(remoteWorkspace, "leak.txt"));
    linkSync(outside, join(remoteWorkspace, "hard.txt"));
    await platform.say(route, "/file report.md");
    await platform.waitFor(route, /\[upload report\.md\] `report\.md`/, REMOTE_TURN_MS);
    expect(platform.uploads[0].data.toString()).toBe("# Report from build\n");
    await platform.say(route, "/file leak.txt");
    await platform.waitFor(route, /`leak\.txt` is outside this thread's workspace \(`build:.*`\)/, REMOTE_TURN_MS);
    await platform.say(route, "/file hard.txt");
    await platform.waitFor(route, /`hard\.txt` has 2 hard links: its other names may be outside the workspace/, REMOTE_TURN_MS);
    await platform.say(route, "/file ../../etc/hostname");
    await platform.waitFor(route, /`\.\.\/\.\.\/etc\/hostname` is outside this thread's workspace/, REMOTE_TURN_MS);
    await platform.say(route, "demo:file report.md");
    await platform.waitFor(route, (m) => m.text.startsWith("[upload report.md]") && platform.uploads.length === 2, REMOTE_TURN_MS);
    expect(platform.uploads.map((u) => u.name)).toEqual(["report.md", "report.md"]);
    await platform.say(route, "/status");
    const status = await platform.waitFor(route, /\*\*Binding:\*\*/);
    expect(status.text).toContain(`**Workspace:** \`build:${remoteWorkspace}\``);
    expect(status.text).toContain("`test:*` (bindings[0] in the config) chose this thread's workspace and agent");
  });

  for (const batonThere of [true, false]) {
    it(`/session and a brief read the machine's store (${batonThere ? "Baton installed there: its readers run there" : "no Baton there: the store is copied over ssh"})`, async () => {
      const demoOverride = { demo: { command: process.execPath, args: [BATON_BIN, "demo-agent"] } };
      const echo = { command: process.execPath, args: [BATON_BIN, "demo-agent"] };
      const { platform, route, remoteWorkspace, remoteDataDir } = await startMachineWorld({
        machine: batonThere ? { agents: { echo } } : { baton: false, agents: { ...demoOverride, echo } },
        config: { agents: { default: "demo", custom: { echo: { command: "echo-agent-acp", display_name: "Echo agent", runtime: "demo" } } } },
      });
      // A session someone left on the build machine, in its own store.
      const earlier = terminalDemoSession(remoteDataDir, remoteWorkspace, ["tidy the build scripts", "and the CI cache"]);
      await platform.say(route, "/workspace --switch build:api");
      await platform.waitFor(route, /New thread/);
      await platform.say(route, "/session");
      const list = await platform.waitFor(route, /Baton demo agent sessions in/, REMOTE_TURN_MS);
      expect(list.text).toContain(`\`${earlier.slice(0, 8)}\` tidy the build scripts`);

      await platform.say(route, `/session --switch ${earlier.slice(0, 8)}`);
      await platform.waitFor(route, new RegExp(`continues session \`${earlier.slice(0, 8)}\``), REMOTE_TURN_MS);
      await platform.say(route, "recall");
      await platform.waitFor(route, new RegExp(`Earlier prompts of session ${earlier}:\\n1\\. tidy the build scripts\\n2\\. and the CI cache`), REMOTE_TURN_MS);

      // Another agent product on the same machine starts from a brief of that session, written there.
      await platform.say(route, "/switch echo");
      await platform.waitFor(route, /New thread with Echo agent, starting from a brief/, REMOTE_TURN_MS);
      // The brief's text goes in the first prompt (the demo agent echoes the resource's size), and
      // the file is there too, in Baton's handoffs directory on that machine.
      const handoff = await platform.waitFor(route, /\[embedded file:\/\/(\S+), (\d+) characters\]/, REMOTE_TURN_MS);
      const [, briefPath, size] = /\[embedded file:\/\/(\S+), (\d+) characters\]/.exec(handoff.text)!;
      expect(briefPath.startsWith(`${join(remoteDataDir, "handoffs")}/`)).toBe(true);
      const brief = readFileSync(briefPath, "utf8");
      expect(brief.length).toBe(Number(size));
      expect(brief).toContain("tidy the build scripts");
      expect(brief).toContain(earlier);
    });
  }
});

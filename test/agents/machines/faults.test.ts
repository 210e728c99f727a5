// A machine's failures are ordinary faults: a dropped connection mid-turn, an unknown host key, a
// refused key, a machine that is down, an agent CLI missing there. Each is told in the chat with
// what fixes it, the thread stays open, and the next message resumes the session once it is fixed.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sshdAvailable } from "../../support/sshd.js";
import { startTestBaton } from "../../support/harness.js";
import { TestPlatform } from "../../support/test-platform.js";
import { REMOTE_TURN_MS, startMachineWorld, stopMachineWorlds, waitUntil, type MachineWorld } from "./helpers.js";

vi.setConfig({ testTimeout: 120_000 });

afterEach(async () => {
  await stopMachineWorlds();
});

/** A thread on build with one answered turn; returns its session id. */
async function threadOnBuild(world: MachineWorld): Promise<string> {
  const { platform, route } = world;
  await platform.say(route, "/workspace --switch build:api");
  await platform.waitFor(route, /New thread/);
  await platform.say(route, "first words");
  const reply = await platform.waitFor(route, /Turn 1 of session ([0-9a-f-]{36})/, REMOTE_TURN_MS);
  await world.baton.daemon.core.supervisor.drained(openThread(world)!.id); // the turn has ended: the agent is idle
  return /session ([0-9a-f-]{36})/.exec(reply.text)![1];
}

function openThread(world: MachineWorld) {
  return world.baton.daemon.core.registry.threadForRoute(world.route);
}

/** Drops the connections and waits until the thread's idle agent (its ssh session) has noticed. */
async function dropWhileIdle(world: MachineWorld): Promise<void> {
  world.sshd.dropConnections();
  const thread = openThread(world)!;
  await waitUntil(() => world.baton.daemon.core.supervisor.state(thread.id).host === "stopped", "the idle agent's ssh session ended");
}

describe.skipIf(!sshdAvailable())("faults of a remote machine", () => {
  it("a connection dropped mid-turn is reported; the next message reconnects and resumes the session", async () => {
    const world = await startMachineWorld({ machine: { handover: "off" } });
    const { platform, route, sshd } = world;
    const session = await threadOnBuild(world);
    await platform.say(route, "demo:slow");
    await platform.waitFor(route, /Working… step 1/, REMOTE_TURN_MS);
    sshd.dropConnections();
    const notice = await platform.waitFor(route, /Lost the connection to build/, REMOTE_TURN_MS);
    expect(notice.text).toMatch(/Send a message to start the agent again; it resumes the session/);
    expect(openThread(world)?.open).toBe(true);

    await platform.say(route, "recall");
    await platform.waitFor(route, new RegExp(`Earlier prompts of session ${session}:\\n1\\. first words\\n2\\. demo:slow`), REMOTE_TURN_MS);
  });

  it("refuses an unknown host key (and learns nothing); once the key is known, the thread resumes", async () => {
    const world = await startMachineWorld({ machine: { handover: "off" } });
    const { platform, route, sshd } = world;
    const session = await threadOnBuild(world);
    const known = readFileSync(sshd.knownHosts, "utf8");
    writeFileSync(sshd.knownHosts, "");
    await dropWhileIdle(world); // the next start needs a new connection, and so a host-key check
    await platform.say(route, "are you there?");
    const refusal = await platform.waitFor(route, /does not know build's host key/, REMOTE_TURN_MS);
    expect(refusal.text).toMatch(/host-key checking stays on/);
    expect(refusal.text).toContain(`ssh-keyscan -p ${sshd.port}`);
    expect(readFileSync(sshd.knownHosts, "utf8")).toBe(""); // never learnt
    expect(openThread(world)?.open).toBe(true);

    writeFileSync(sshd.knownHosts, known);
    await platform.say(route, "recall");
    await platform.waitFor(route, new RegExp(`Earlier prompts of session ${session}:\\n1\\. first words$`), REMOTE_TURN_MS);
  });

  it("a changed host key is refused with the warning it deserves", async () => {
    const world = await startMachineWorld({ machine: { handover: "off" } });
    const { platform, route, sshd } = world;
    await threadOnBuild(world);
    const other = join(sshd.dir, "other_host_key");
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", other]);
    writeFileSync(sshd.knownHosts, `[127.0.0.1]:${sshd.port} ${readFileSync(`${other}.pub`, "utf8").trim().split(" ").slice(0, 2).join(" ")}\n`);
    await dropWhileIdle(world);
    await platform.say(route, "still there?");
    const refusal = await platform.waitFor(route, /host key has CHANGED/, REMOTE_TURN_MS);
    expect(refusal.text).toContain("ssh-keygen -R");
  });

  it("a refused key and a machine that is down are reported with the fix; when it is back the session resumes", async () => {
    const world = await startMachineWorld({ machine: { handover: "off" } });
    const { platform, route, sshd } = world;
    const session = await threadOnBuild(world);
    const authorized = join(sshd.dir, "authorized_keys");
    const keys = readFileSync(authorized);
    writeFileSync(authorized, "");
    await dropWhileIdle(world);
    await platform.say(route, "knock knock");
    const refused = await platform.waitFor(route, /build refused Baton's key \(.*Permission denied/, REMOTE_TURN_MS);
    expect(refused.text).toContain(`${sshd.identityFile}.pub`);
    writeFileSync(authorized, keys);

    await sshd.stop();
    await platform.say(route, "anyone?");
    const down = await platform.waitFor(route, /Cannot reach build \(.*Connection refused\)/, REMOTE_TURN_MS);
    expect(down.text).toMatch(/The thread is kept/);
    expect(openThread(world)?.open).toBe(true);

    await sshd.start();
    await platform.say(route, "recall");
    await platform.waitFor(route, new RegExp(`Earlier prompts of session ${session}:\\n1\\. first words$`), REMOTE_TURN_MS);
  });

  it("a thread on a machine taken out of the config says so and closes; it never runs anywhere else", async () => {
    const world = await startMachineWorld({ machine: { handover: "off" } });
    await world.platform.say(world.route, "/workspace --switch build:api");
    await world.platform.waitFor(world.route, /New thread/);
    await world.baton.stop();
    const platform = new TestPlatform();
    const again = await startTestBaton({ adapters: [platform], dataDir: world.baton.dataDir });
    try {
      await platform.say(world.route, "/status");
      await platform.waitFor(world.route, /\*\*Machine:\*\* build \(no longer in the config\)/);
      const thread = again.daemon.core.registry.threadForRoute(world.route)!;
      await platform.say(world.route, "hello?");
      const notice = await platform.waitFor(world.route, /on the machine "build", which is not in the config any more/, REMOTE_TURN_MS);
      expect(notice.text).toMatch(/This thread is now closed/);
      await waitUntil(() => again.daemon.core.registry.get(thread.id)?.open === false, "the thread is closed");
    } finally {
      await again.stop();
    }
  });

  it("an agent CLI missing there is reported with how to install it or point at it; the thread stays open", async () => {
    const world = await startMachineWorld({ machine: { handover: "off", agents: { demo: { command: "baton-demo-not-installed" } } } });
    const { platform, route } = world;
    await platform.say(route, "/workspace --switch build:api");
    await platform.waitFor(route, /New thread/);
    await platform.say(route, "hello?");
    const notice = await platform.waitFor(route, /Baton demo agent is not installed on build/, REMOTE_TURN_MS);
    expect(notice.text).toContain("`baton-demo-not-installed` was not found on its PATH");
    expect(notice.text).toContain("machines.build.agents.demo.command");
    expect(openThread(world)?.open).toBe(true);
  });
});

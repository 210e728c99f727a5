// Terminal → chat from another machine: `baton launch demo` in a terminal on build (reached with
// ssh, as its user would) hands its session over with /pickup. Its `baton mcp` finds the daemon
// through the endpoint the daemon published there: an SSH reverse tunnel, or an opt-in listener.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { shellQuote } from "../../../src/kernel/shell.js";
import { callTool, codeIn, httpClient } from "../../pickup/helpers.js";
import { freePort } from "../../support/free-port.js";
import { sshdAvailable, type TestSshd } from "../../support/sshd.js";
import { BATON_BIN, REMOTE_TURN_MS, startMachineWorld, stopMachineWorlds, waitUntil, type MachineWorld } from "./helpers.js";

vi.setConfig({ testTimeout: 120_000 });

let terminal: ChildProcessWithoutNullStreams | undefined;
afterEach(async () => {
  if (terminal && terminal.exitCode === null) terminal.kill();
  terminal = undefined;
  await stopMachineWorlds();
});

/** A terminal on build: ssh there and run `baton launch demo` in the directory. */
function terminalOnBuild(sshd: TestSshd, cwd: string) {
  const remote = `cd ${shellQuote(cwd)} && exec ${shellQuote(process.execPath)} ${shellQuote(BATON_BIN)} launch demo`;
  const child = spawn("ssh", [
    "-T",
    "-p",
    String(sshd.port),
    "-i",
    sshd.identityFile,
    "-o",
    "IdentitiesOnly=yes",
    "-o",
    "BatchMode=yes",
    "-o",
    "StrictHostKeyChecking=yes",
    "-o",
    `UserKnownHostsFile=${sshd.knownHosts}`,
    sshd.destination,
    "--",
    remote,
  ]);
  terminal = child;
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (out += d));
  return {
    child,
    type: (line: string) => child.stdin.write(`${line}\n`),
    async waitFor(pattern: RegExp, timeoutMs = REMOTE_TURN_MS): Promise<RegExpExecArray> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const m = pattern.exec(out);
        if (m) return m;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}; terminal output:\n${out}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
  };
}

/** Runs a terminal session on build, hands it over, and continues it from the chat. */
async function handOverFromBuild(world: MachineWorld): Promise<void> {
  const { sshd, platform, route, remoteWorkspace, remoteDataDir } = world;
  const shell = terminalOnBuild(sshd, remoteWorkspace);
  await shell.waitFor(/session [0-9a-f-]{36} in /);
  shell.type("written on build");
  const session = (await shell.waitFor(/Turn 1 of session ([0-9a-f-]{36}): you said "written on build"/))[1];
  shell.type("/handover");
  const code = codeIn((await shell.waitFor(/\/pickup [A-Z2-9]{4}/))[0]);

  await platform.say(route, `/pickup ${code}`);
  const picked = await platform.waitFor(route, /Picked up Baton demo agent session/, REMOTE_TURN_MS);
  expect(picked.text).toContain(`\`${session.slice(0, 8)}\` in \`build:${remoteWorkspace}\``);
  await platform.say(route, "recall");
  await platform.waitFor(route, new RegExp(`Earlier prompts of session ${session}:\\n1\\. written on build`), REMOTE_TURN_MS);
  // The chat's turn ran on build, in the same session file the terminal wrote.
  const lines = readFileSync(join(remoteDataDir, "demo-agent", "sessions", `${session}.jsonl`), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { type: string; text?: string });
  expect(lines.filter((l) => l.type === "prompt").map((l) => l.text)).toEqual(["written on build", "recall"]);

  shell.type("/exit");
  expect(await new Promise((resolve) => shell.child.once("exit", resolve))).toBe(0);
}

describe.skipIf(!sshdAvailable())("terminal handover from another machine", () => {
  it("through an SSH reverse tunnel: /pickup continues a session started in a terminal on build", async () => {
    const world = await startMachineWorld();
    const { baton, remoteDataDir } = world;
    const endpointFile = join(remoteDataDir, "mcp-remote.json");
    await waitUntil(() => existsSync(endpointFile), "the daemon published its tunnel on build");
    const endpoint = JSON.parse(readFileSync(endpointFile, "utf8")) as { url: string; machine: string; via: string };
    expect(endpoint).toMatchObject({ machine: "build", via: "tunnel" });
    expect(endpoint.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    // build's own token, private there, not the daemon's local one.
    const token = readFileSync(join(remoteDataDir, "mcp-remote-token"), "utf8").trim();
    expect(statSync(join(remoteDataDir, "mcp-remote-token")).mode & 0o777).toBe(0o600);
    expect(token).toBe(readFileSync(join(baton.dataDir, "machines", "build", "mcp-token"), "utf8").trim());
    expect(token).not.toBe(readFileSync(join(baton.dataDir, "mcp-token"), "utf8").trim());

    await handOverFromBuild(world);

    await baton.stop();
    expect(existsSync(endpointFile)).toBe(false); // the daemon removes what it published there
  });

  it("a machine's token acts for that machine's directories only", async () => {
    const world = await startMachineWorld();
    const { baton, remoteDataDir } = world;
    await waitUntil(() => existsSync(join(remoteDataDir, "mcp-remote-token")), "the daemon published its tunnel on build");
    const client = await httpClient(baton.dataDir, readFileSync(join(remoteDataDir, "mcp-remote-token"), "utf8").trim());
    try {
      // Allowed here (the daemon's roots include the temp dir), not on build (roots: ~/code): build's rules apply.
      const here = join(baton.dataDir, "threads");
      const reply = await callTool(client, "prepare_handover", { cwd: here, agent_kind: "demo" });
      expect(reply.isError).toBe(true);
      expect(reply.text).toContain(`\`${here}\` is outside Baton's allowed workspaces (~/code)`);
      expect(reply.text).toContain("machines.build.roots");
      // And a directory missing there is missing on build, whatever exists here.
      const missing = await callTool(client, "get_session_id", { cwd: "/nonexistent-on-build", agent_kind: "demo" });
      expect(missing.text).toContain("`/nonexistent-on-build` is not an existing directory on build.");
    } finally {
      await client.close();
    }
  });

  it("through a token-protected listener the user opened (handover.remote_listen)", async () => {
    const port = await freePort();
    const world = await startMachineWorld({
      machine: { handover: "listener", handover_url: `http://127.0.0.1:${port}/mcp` },
      config: { handover: { remote_listen: `127.0.0.1:${port}` } },
    });
    const endpointFile = join(world.remoteDataDir, "mcp-remote.json");
    await waitUntil(() => existsSync(endpointFile), "the daemon published the listener's URL on build");
    expect(JSON.parse(readFileSync(endpointFile, "utf8"))).toMatchObject({ url: `http://127.0.0.1:${port}/mcp`, via: "listener" });
    // The listener takes only the listener machines' tokens, not the daemon's local one.
    const denied = await fetch(`http://127.0.0.1:${port}/mcp`, { method: "POST", headers: { authorization: `Bearer ${readFileSync(join(world.baton.dataDir, "mcp-token"), "utf8").trim()}` } });
    expect(denied.status).toBe(401);

    await handOverFromBuild(world);
  });
});

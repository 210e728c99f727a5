// A daemon killed (SIGKILL) while subagents run: nothing is lost. On restart they are
// `interrupted`; when the thread's agent starts again they resume from their own sessions and
// finish, and the agent's next wait_for_subagents gets their reports. Baton runs as a separate
// process here (`baton start` with the web chat), so it can really be killed.
import { spawn, type ChildProcess } from "node:child_process";
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { WebChatClient } from "../../support/web-client.js";
import { cleanup, MULTI_AGENT_MS, tempDir } from "./helpers.js";
import { isProcessAlive } from "../../../src/kernel/process.js";

vi.setConfig({ testTimeout: 300_000 });

const BATON = join(process.cwd(), "bin", "baton.js");
const START_MS = 60_000;
const children: ChildProcess[] = [];
const clients: WebChatClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    }
  }
  await cleanup();
});

async function startBaton(config: string, dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BATON, "start", "--config", config, "--data-dir", dataDir], { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
  const deadline = Date.now() + START_MS;
  while (!out.includes("Baton ready")) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`Baton did not start:\n${out}\n${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, url: /^Web chat: (\S+)$/m.exec(out)![1] };
}

function childPids(pid: number): number[] {
  try {
    return execFileSync("pgrep", ["-P", String(pid)], { encoding: "utf8" })
      .trim()
      .split("\n")
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

function subagentEvents(dataDir: string): Array<Record<string, unknown>> {
  return readFileSync(join(dataDir, "threads", "events.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((e) => String(e.type).startsWith("subagent_"));
}

describe("a daemon killed mid-run", () => {
  it("restarts with its subagents interrupted, resumes them from their sessions when the thread's agent starts, and the next wait gets their reports", async () => {
    const dir = tempDir("baton-sub-restart-");
    const workspace = tempDir("baton-sub-ws-");
    const dataDir = join(dir, "data");
    const config = join(dir, "baton.yaml");
    // No spare agent process: the test counts the daemon's children (its own tests are test/core/spare.test.ts).
    writeFileSync(
      config,
      `agents:\n  default: demo\n  spare_host: false\nworkspaces:\n  roots: [${JSON.stringify(workspace)}]\n  default: ${JSON.stringify(workspace)}\nplatforms:\n  web:\n    listen: 127.0.0.1:0\n`,
    );

    const first = await startBaton(config, dataDir);
    const chat = await WebChatClient.open(first.url, "restart-1");
    clients.push(chat);
    const slow = {
      mode: "parallel",
      subagents: [
        { name: "alpha", task: "demo:slow=400 Name a colour" },
        { name: "beta", task: "demo:slow=400 Name a fruit" },
      ],
    };
    chat.send(`demo:subagents ${JSON.stringify(slow)}`);
    await chat.waitFor(/`?alpha`? · demo · running · Working[\s\S]*`?beta`? · demo · running · Working/, MULTI_AGENT_MS);
    const sessions = Object.fromEntries(
      subagentEvents(dataDir)
        .filter((e) => e.session)
        .map((e) => [e.name, e.session]),
    );
    expect(Object.keys(sessions).sort()).toEqual(["alpha", "beta"]);
    const agents = childPids(first.child.pid!);
    expect(agents.length).toBe(3);

    first.child.kill("SIGKILL");
    await new Promise((r) => first.child.once("exit", r));
    chat.close();
    // The agents noticed their client was gone and ended: no process outlives the daemon.
    const deadline = Date.now() + START_MS;
    while (agents.some(isProcessAlive)) {
      if (Date.now() > deadline) throw new Error(`agent processes outlived the daemon: ${agents.filter(isProcessAlive).join(", ")}`);
      await new Promise((r) => setTimeout(r, 100));
    }

    const second = await startBaton(config, dataDir);
    const again = await WebChatClient.open(second.url, "restart-1");
    clients.push(again);
    again.send("/status");
    await again.waitFor(/alpha`? · demo · interrupted[\s\S]*beta`? · demo · interrupted/, MULTI_AGENT_MS);

    // The thread's agent starts again (a new turn): the subagents resume, and its wait collects them.
    again.send(`demo:mcp wait_for_subagents ${JSON.stringify({ timeout_s: 120 })}`);
    const reports = await again.waitFor(/wait_for_subagents: 2 of 2 subagents finished\./, MULTI_AGENT_MS);
    expect(reports).toContain("alpha answers “Name a colour” (resumed).");
    expect(reports).toContain("beta answers “Name a fruit” (resumed).");
    // Resumed from the sessions they had before the kill.
    expect(reports).toContain(`session ${sessions.alpha}`);
    expect(reports).toContain(`session ${sessions.beta}`);
    const states = subagentEvents(dataDir)
      .filter((e) => e.state)
      .map((e) => `${e.name}:${e.state}`);
    expect(states.filter((s) => s.startsWith("alpha:"))).toEqual(["alpha:running", "alpha:interrupted", "alpha:running", "alpha:done"]);
  });
});

// The demo agent's load prompts, which `npm run bench` uses, driven through its real process with
// the ACP SDK's client. `demo:stream` (fifty streaming turns): a long turn must stay as cheap per
// chunk as a short one (its pauses once left a listener each on the turn's abort signal).
// `demo:burn` (agents' builds keeping every core busy): its processes are the agent's children at
// the agent's priority, and none outlives its turn or its agent.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { getPriority, setPriority } from "node:os";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { DEMO_AGENT_ENTRY } from "../../src/kernel/install.js";
import { testTempDir } from "../support/temp.js";

const running: Array<() => void> = [];
afterEach(() => {
  for (const stop of running.splice(0)) stop();
});

async function startDemo() {
  const dir = testTempDir("baton-demo-stream-");
  const child = spawn(process.execPath, [DEMO_AGENT_ENTRY], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, BATON_DATA_DIR: dir } });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  running.push(() => child.kill());
  const text: string[] = [];
  const connection = acp
    .client({ name: "test" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      const update = params.update;
      if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") text.push(update.content.text);
    })
    .connect(acp.ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>));
  await connection.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  const { sessionId } = await connection.agent.request(acp.methods.agent.session.new, { cwd: dir, mcpServers: [] });
  const prompt = (words: string) => connection.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: words }] });
  return { child, text, prompt, stderr: () => stderr, cancel: () => connection.agent.notify(acp.methods.agent.session.cancel, { sessionId }) };
}

describe("demo:stream", () => {
  it("streams every byte in order, its pauses leaving nothing behind on the turn's signal", async () => {
    const demo = await startDemo();
    // 400 chunks of 10 bytes, 1 ms apart: Node warns of a leak from the 11th listener on one signal.
    const { stopReason } = await demo.prompt("demo:stream 4000 10 1");
    expect(stopReason).toBe("end_turn");
    const streamed = demo.text.join("");
    expect(streamed.endsWith("\n\nEnd of stream.\n")).toBe(true);
    const body = streamed.slice(0, -"\n\nEnd of stream.\n".length);
    expect(body).toHaveLength(4000);
    expect(body).toMatch(/^Paragraph 1 of [\w-]+: /);
    expect(demo.text.slice(0, 400).every((piece) => piece.length === 10)).toBe(true);
    expect(demo.stderr()).not.toMatch(/MaxListenersExceededWarning|memory leak/i);
  });

  it("stops at a cancel mid-stream", async () => {
    const demo = await startDemo();
    const turn = demo.prompt("demo:stream 1m 10 5");
    await expect.poll(() => demo.text.length, { timeout: 10_000 }).toBeGreaterThan(5);
    await demo.cancel();
    expect((await turn).stopReason).toBe("cancelled");
    expect(demo.text.join("").length).toBeLessThan(1024 * 1024);
  });
});

/** The agent's child processes (pgrep exits 1 when there are none). */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync("pgrep", ["-P", String(pid)], { encoding: "utf8" })
      .trim()
      .split("\n")
      .map(Number);
  } catch {
    return [];
  }
}

/** Alive and not a zombie waiting for whoever reaps orphans here. */
function isRunning(pid: number): boolean {
  return existsSync(`/proc/${pid}`) && readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1][0] !== "Z";
}

/** CPU time (user + system, clock ticks) of a process so far. */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

describe.skipIf(process.platform !== "linux")("demo:burn", () => {
  it("keeps CPU-bound processes of the agent's own busy, at its priority, then ends the turn", async () => {
    const demo = await startDemo();
    setPriority(demo.child.pid!, 7);
    const turn = demo.prompt("demo:burn 4 2");
    await expect.poll(() => childrenOf(demo.child.pid!).length, { timeout: 10_000 }).toBe(2);
    const burners = childrenOf(demo.child.pid!);
    const before = burners.map(cpuTicks);
    // Each spins: it gains CPU time (ticks are 10 ms) where a sleeping process gains none. At nice 7
    // on a machine that is busy with other tests it gets a small share, so wait for it rather than
    // expect a share of a fixed half second (at load 9, 4 ticks in 500 ms).
    for (const [i, pid] of burners.entries()) {
      await expect.poll(() => cpuTicks(pid) - before[i], { timeout: 3_500 }).toBeGreaterThan(10);
    }
    expect(burners.map((pid) => getPriority(pid))).toEqual([7, 7]);
    expect((await turn).stopReason).toBe("end_turn");
    expect(demo.text.join("")).toBe("Keeping 2 CPU-bound processes busy for 4 s. Done.");
    expect(childrenOf(demo.child.pid!)).toEqual([]);
  });

  it("a cancel ends the processes at once; a killed agent leaves none behind", async () => {
    const demo = await startDemo();
    const turn = demo.prompt("demo:burn 60");
    await expect.poll(() => childrenOf(demo.child.pid!).length, { timeout: 10_000 }).toBe(1);
    await demo.cancel();
    expect((await turn).stopReason).toBe("cancelled");
    await expect.poll(() => childrenOf(demo.child.pid!), { timeout: 5_000 }).toEqual([]);

    void demo.prompt("demo:burn 60").catch(() => undefined);
    await expect.poll(() => childrenOf(demo.child.pid!).length, { timeout: 10_000 }).toBe(1);
    const [orphan] = childrenOf(demo.child.pid!);
    demo.child.kill("SIGKILL");
    // Killed as soon as the burner exists, mostly before Node has started in it: it still sees the
    // agent gone (not its new parent) and stops by itself.
    await expect.poll(() => isRunning(orphan), { timeout: 5_000 }).toBe(false);
  });
});

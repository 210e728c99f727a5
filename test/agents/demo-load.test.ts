// The demo agent's `demo:stream`, which `npm run bench` uses as the load of fifty streaming turns:
// driven through its real process with the ACP SDK's client. A long turn must stay as cheap per
// chunk as a short one: its pauses once left a listener each on the turn's abort signal.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { DEMO_AGENT_ENTRY } from "../../src/kernel/install.js";
import { testTempDir } from "../support/temp.js";

const running: Array<() => void> = [];
afterEach(() => running.splice(0).forEach((stop) => stop()));

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

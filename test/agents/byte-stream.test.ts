// The agent's stdout reaches the ACP SDK without a copy per chunk, and a reader that falls behind
// pauses the pipe (the agent is held back there) instead of queueing its output in memory.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { byteStream } from "../../src/agents/byte-stream.js";

describe("byteStream", () => {
  it("pauses the source while chunks wait unread, resumes as they are read, and ends with it", async () => {
    const source = new PassThrough();
    const stream = byteStream(source);
    const chunks = Array.from({ length: 20 }, (_, i) => Buffer.alloc(1024, i));
    for (const chunk of chunks) source.write(chunk);
    await new Promise((r) => setImmediate(r));
    expect(source.isPaused()).toBe(true);
    const reader = stream.getReader();
    const first = await reader.read();
    // The pipe's own buffer, not a copy.
    expect(first.value!.buffer).toBe(chunks[0].buffer);
    source.end();
    const received: Uint8Array[] = [first.value!];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      received.push(value);
    }
    expect(Buffer.concat(received)).toEqual(Buffer.concat(chunks));
  });

  it("passes the source's error on", async () => {
    const source = new PassThrough();
    const reader = byteStream(source).getReader();
    source.destroy(new Error("pipe broke"));
    await expect(reader.read()).rejects.toThrow("pipe broke");
  });
});

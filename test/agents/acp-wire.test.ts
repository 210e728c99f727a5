// The agent's wire as the ACP SDK sees it: stdout split into JSON-RPC messages however the pipe
// cuts it, bad lines answered the way the SDK's own stream answers them, a reader that falls
// behind holding the agent back in its pipe, and writes as one JSON line each on stdin.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { acpWire, MAX_MESSAGE_BYTES, MessageTooLargeError, type WireMessage } from "../../src/agents/acp-wire.js";

function open(take: (m: WireMessage) => boolean = () => false) {
  const stdout = new PassThrough();
  const stdin = new PassThrough();
  const written: string[] = [];
  stdin.setEncoding("utf8").on("data", (d: string) => written.push(d));
  const wire = acpWire(stdout, stdin, take);
  return { stdout, stdin, written, wire };
}

async function readAll(readable: ReadableStream<WireMessage>): Promise<WireMessage[]> {
  const out: WireMessage[] = [];
  for await (const m of readable as unknown as AsyncIterable<WireMessage>) out.push(m);
  return out;
}

const tick = () => new Promise((r) => setImmediate(r));

describe("acpWire", () => {
  it("splits messages however the pipe cuts them (across chunks, several in one, CRLF, blank lines, a last line without newline)", async () => {
    const { stdout, wire } = open();
    const text = '{"jsonrpc":"2.0","id":1,"result":{"a":"é"}}\r\n\n{"jsonrpc":"2.0","method":"x","params":{}}\n{"jsonrpc":"2.0","id":2,"result":null}';
    const bytes = Buffer.from(text);
    // One byte at a time splits the two-byte é as well.
    for (let i = 0; i < bytes.length; i++) stdout.write(bytes.subarray(i, i + 1));
    stdout.end();
    expect(await readAll(wire.readable)).toEqual([
      { jsonrpc: "2.0", id: 1, result: { a: "é" } },
      { jsonrpc: "2.0", method: "x", params: {} },
      { jsonrpc: "2.0", id: 2, result: null },
    ]);
  });

  it("hands what `take` takes to it alone, in order", async () => {
    const taken: WireMessage[] = [];
    const { stdout, wire } = open((m) => (m.method === "mine" ? (taken.push(m), true) : false));
    stdout.end(`${['{"method":"mine","n":1}', '{"method":"sdk","n":2}', '{"method":"mine","n":3}'].join("\n")}\n`);
    expect(await readAll(wire.readable)).toEqual([{ method: "sdk", n: 2 }]);
    expect(taken).toEqual([
      { method: "mine", n: 1 },
      { method: "mine", n: 3 },
    ]);
  });

  it("answers a line that is not JSON, a batch and a non-object with JSON-RPC errors, and goes on", async () => {
    const { stdout, wire, written } = open();
    stdout.end('not json\n[{"id":1}]\n42\n{"id":9,"result":1}\n');
    expect(await readAll(wire.readable)).toEqual([{ id: 9, result: 1 }]);
    await tick();
    expect(
      written
        .join("")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } },
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid request: JSON-RPC batches are not supported" } },
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid request", data: 42 } },
    ]);
  });

  it("ends the connection on a line over the size limit, without holding it in memory", async () => {
    const { stdout, wire } = open();
    const piece = Buffer.alloc(1024 * 1024, 0x61);
    const reading = readAll(wire.readable).then(
      () => undefined,
      (error: unknown) => error,
    );
    for (let sent = 0; sent <= MAX_MESSAGE_BYTES && !stdout.destroyed; sent += piece.length) {
      stdout.write(piece);
      await tick();
    }
    expect(await reading).toBeInstanceOf(MessageTooLargeError);
    expect(stdout.destroyed).toBe(true);
  });

  it("pauses the agent's stdout while messages wait for the SDK, and resumes as they are read", async () => {
    const { stdout, wire } = open();
    for (let i = 0; i < 50; i++) stdout.write(`{"id":${i},"result":null}\n`);
    await tick();
    expect(stdout.isPaused()).toBe(true);
    const reader = wire.readable.getReader();
    const got: unknown[] = [];
    while (got.length < 50) got.push((await reader.read()).value);
    expect(got.map((m) => (m as { id: number }).id)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(stdout.isPaused()).toBe(false);
  });

  it("ends the connection, not Baton, when the handler of a taken message throws", async () => {
    const { stdout, wire } = open(() => {
      throw new Error("handler broke");
    });
    const reading = readAll(wire.readable).then(
      () => undefined,
      (error: unknown) => error,
    );
    stdout.write('{"method":"a"}\n{"method":"b"}\n');
    expect(await reading).toMatchObject({ message: "handler broke" });
    expect(stdout.destroyed).toBe(true);
  });

  it("passes the pipe's error on", async () => {
    const { stdout, wire } = open();
    const reading = readAll(wire.readable);
    stdout.destroy(new Error("pipe broke"));
    await expect(reading).rejects.toThrow("pipe broke");
  });

  it("writes each message as one JSON line, and ends stdin on close", async () => {
    const { stdin, wire, written } = open();
    const writer = wire.writable.getWriter();
    await writer.write({ jsonrpc: "2.0", id: 1, method: "session/prompt", params: { text: "a\nb" } });
    await writer.write({ jsonrpc: "2.0", method: "n" });
    await writer.close();
    expect(stdin.writableEnded).toBe(true);
    expect(written.join("")).toBe('{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"text":"a\\nb"}}\n{"jsonrpc":"2.0","method":"n"}\n');
  });

  it("fails a write to an agent that has gone, without an unhandled error", async () => {
    const { stdin, wire } = open();
    stdin.destroy();
    await expect(wire.writable.getWriter().write({ id: 1 })).rejects.toThrow();
  });
});

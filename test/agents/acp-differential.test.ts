// Baton's hand-written ACP wire (agents/acp-wire.ts: the line splitter, and session-update-parse.ts:
// plain text chunks and usage updates checked by hand before the SDK) against the ACP SDK's own
// path (its ndJsonStream and schemas), over what the real agent CLIs wrote on their stdout: sessions
// of claude-agent-acp, codex-acp, Gemini CLI, OpenCode and Qwen Code recorded by the real-agent suite
// (BATON_RECORD_ACP=<dir> npm run test:agents; test/fixtures/acp/). Both paths must hand the
// client's handler the same updates in the same order and write the same answers back to the agent,
// for the recordings as they are and with malformed lines and updates spliced in.
import { PassThrough } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, it, vi } from "vitest";
import { acpWire } from "../../src/agents/acp-wire.js";
import { takeHandCheckedUpdates } from "../../src/agents/session-update-parse.js";
import { recordedAcpLines, recordedAcpSessions } from "../support/recorded-acp.js";

const RECORDINGS = recordedAcpSessions();
/** Baton's wire gets the bytes in pieces of this size, so lines (and UTF-8 characters) are cut across chunks. */
const CHUNK_BYTES = 1_000;
/** What both clients answer to a permission request (the same answer, so only the wire can differ). */
const PERMISSION_ANSWER = { outcome: { outcome: "cancelled" as const } };

interface Outcome {
  /** What the client's session/update handler received, in order. */
  updates: acp.SessionNotification[];
  /** What the client wrote back to the agent (answers to its requests, errors for bad lines). */
  written: { answers: unknown[]; lineErrors: unknown[] };
  /** What the SDK reported of what it refused (it logs a notification it will not hand on). */
  refused: string[];
}

/** The client Baton's host builds, on a given stream; resolves once the agent's stdout has ended and all is handled. */
async function runClient(stream: acp.Stream, onUpdate: (n: acp.SessionNotification) => void): Promise<string[]> {
  const logged: string[] = [];
  const spy = vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void logged.push(args.map((a) => JSON.stringify(a)).join(" ")));
  try {
    await connect(stream, onUpdate);
  } finally {
    spy.mockRestore();
  }
  return logged;
}

async function connect(stream: acp.Stream, onUpdate: (n: acp.SessionNotification) => void): Promise<void> {
  const connection = acp
    .client({ name: "differential" })
    .onNotification(acp.methods.client.session.update, ({ params }) => onUpdate(params))
    .onRequest(acp.methods.client.session.requestPermission, () => PERMISSION_ANSWER)
    .connect(stream);
  await connection.closed;
  // Handlers the SDK started before the close may still be settling.
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * What was written back, as two lists in the order written: answers to the agent's requests, and
 * error answers to lines that were no request at all (id null). The two come from different places
 * (a handler's promise, the line reader), so how they interleave is timing, not meaning.
 */
function parseLines(text: string): { answers: unknown[]; lineErrors: unknown[] } {
  const messages = text
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { id?: unknown });
  return { answers: messages.filter((m) => m.id !== null), lineErrors: messages.filter((m) => m.id === null) };
}

/**
 * A recording may end on a request (the session was recorded up to a permission request): a live
 * agent keeps its stdout open while it waits for the answer, so both clients get to answer before
 * the stream ends. (Closed at once, whether an answer is still written after the close differed
 * between Node versions for the SDK's stream: Node 26 dropped it, Node 20 wrote it.)
 */
async function agentLingers(): Promise<void> {
  for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** The agent's stdout through the SDK alone: its ndJsonStream, its schema for every update. */
async function throughSdk(bytes: Buffer): Promise<Outcome> {
  const updates: acp.SessionNotification[] = [];
  let written = "";
  const decoder = new TextDecoder();
  const input = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(new Uint8Array(bytes));
      await agentLingers();
      controller.close();
    },
  });
  const output = new WritableStream<Uint8Array>({ write: (chunk) => void (written += decoder.decode(chunk, { stream: true })) });
  const refused = await runClient(acp.ndJsonStream(output, input), (n) => updates.push(n));
  return { updates, written: parseLines(written), refused };
}

/** The agent's stdout through Baton's wire, wired as agents/host.ts wires it. */
async function throughBaton(bytes: Buffer): Promise<Outcome> {
  const updates: acp.SessionNotification[] = [];
  const taken = takeHandCheckedUpdates((n) => updates.push(n));
  const stdout = new PassThrough();
  const stdin = new PassThrough();
  let written = "";
  stdin.setEncoding("utf8").on("data", (d: string) => (written += d));
  const wire = acpWire(stdout, stdin, (message) => taken.take(message));
  const running = runClient(wire as unknown as acp.Stream, (n) => taken.fromSdk(n));
  for (let at = 0; at < bytes.length; at += CHUNK_BYTES) stdout.write(bytes.subarray(at, at + CHUNK_BYTES));
  await agentLingers();
  stdout.end();
  const refused = await running;
  return { updates, written: parseLines(written), refused };
}

/** The recording's lines with `extra` lines spliced in after every `every`-th line. */
function splice(lines: string[], extra: string[], every: number): Buffer {
  const out: string[] = [];
  lines.forEach((line, i) => {
    out.push(line);
    if (i % every === every - 1) out.push(...extra);
  });
  return Buffer.from(`${out.join("\n")}\n`);
}

/** Malformed messages an agent could write, each next to a well-formed one that must still arrive. */
function malformed(sessionId: string): string[] {
  const update = (u: Record<string, unknown>, outer: Record<string, unknown> = {}) => JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId, update: u, ...outer } });
  return [
    update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: 5 } }),
    update({ sessionUpdate: "agent_message_chunk", content: { type: "text" } }),
    update({ sessionUpdate: "agent_message_chunk", content: "text" }),
    update({ sessionUpdate: "usage_update", used: "5", size: 10 }),
    update({ sessionUpdate: "usage_update", used: 5 }),
    update({ sessionUpdate: "usage_update", used: 5, size: 10, cost: { amount: "1", currency: "USD" } }),
    update({ sessionUpdate: "no_such_update", content: { type: "text", text: "x" } }),
    JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: 7, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" } } } }),
    JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId } }),
    "not json",
    '[{"jsonrpc":"2.0","method":"session/update"}]',
    "42",
    update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "still here" } }),
    update({ sessionUpdate: "usage_update", used: 7, size: 10 }),
    // What the hand check leaves to the SDK because its schema rebuilds it.
    update({ sessionUpdate: "usage_update", used: 8, size: 10, cost: { amount: 1 } }),
    update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" }, messageId: null }),
  ];
}

function sessionIdOf(lines: string[]): string {
  for (const line of lines) {
    const id = (JSON.parse(line) as { params?: { sessionId?: unknown } }).params?.sessionId;
    if (typeof id === "string") return id;
  }
  throw new Error("no session id in the recording");
}

describe("Baton's ACP wire against the SDK's, over recorded sessions of the real CLIs", () => {
  it("has recordings of each real CLI", () => {
    expect(RECORDINGS.map((f) => f.replace(/-\d.*$/, ""))).toEqual(expect.arrayContaining(["claude-agent-acp", "codex-acp", "gemini-cli", "opencode", "qwen-code"]));
  });

  for (const file of RECORDINGS) {
    const lines = recordedAcpLines(file);

    it(`${file}: the same updates in the same order, and the same answers written back`, async () => {
      const bytes = Buffer.from(`${lines.join("\n")}\n`);
      const [sdk, baton] = [await throughSdk(bytes), await throughBaton(bytes)];
      expect(sdk.updates.length).toBeGreaterThan(5);
      expect(baton.updates).toStrictEqual(sdk.updates);
      expect(baton.written).toStrictEqual(sdk.written);
      expect(baton.refused).toStrictEqual(sdk.refused);
    });

    it(`${file} with malformed lines and updates spliced in: refused alike, the rest delivered alike`, async () => {
      const bytes = splice(lines, malformed(sessionIdOf(lines)), 7);
      const [sdk, baton] = [await throughSdk(bytes), await throughBaton(bytes)];
      const texts = (o: Outcome) => o.updates.filter((n) => n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text" && n.update.content.text === "still here").length;
      expect(texts(sdk)).toBeGreaterThan(0);
      expect(baton.updates).toStrictEqual(sdk.updates);
      expect(baton.written).toStrictEqual(sdk.written);
      expect(sdk.refused.filter((l) => l.includes("Invalid params")).length).toBeGreaterThan(0);
      expect(baton.refused).toStrictEqual(sdk.refused);
    });
  }
});

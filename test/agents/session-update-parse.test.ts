// Plain text chunks of `session/update` are taken off the wire before the ACP SDK and checked by
// hand; every other update goes through the SDK. What the hand check accepts must be exactly what
// the SDK's own schema gives (the schema read here from the installed SDK), and the updates must
// reach the handler in the order the agent sent them, whichever way each went.
import { describe, expect, it } from "vitest";
import type { SessionNotification } from "@agentclientprotocol/sdk";
import { PassThrough } from "node:stream";
import { acpWire } from "../../src/agents/acp-wire.js";
import { takeTextChunks, textChunk } from "../../src/agents/session-update-parse.js";

const TEXT = { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Hello **world**" } } };
const TOOL_CALL = { sessionId: "s1", update: { sessionUpdate: "tool_call", toolCallId: "t1", title: "Read file", kind: "read", status: "pending" } };

const SAMPLES: unknown[] = [
  TEXT,
  TOOL_CALL,
  { sessionId: "s1", update: { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "thinking" } } },
  { sessionId: "s1", update: { sessionUpdate: "user_message_chunk", content: { type: "text", text: "" }, messageId: "m1" } },
  { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x", annotations: { priority: 0.5 } } } },
  { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x", _meta: { a: 1 } } }, _meta: { b: 2 } },
  { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" }, messageId: null } },
  { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" }, messageId: 7 } },
  { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" }, unknownField: 1 } },
  { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "image", data: "aGk=", mimeType: "image/png" } } },
  { sessionId: "s1", update: { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" } },
  { sessionId: "s1", update: { sessionUpdate: "plan", entries: [{ content: "step", priority: "high", status: "pending" }] } },
  null,
  { sessionId: 1, update: TEXT.update },
  { sessionId: "s1" },
  { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text" } } },
  { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: 5 } } },
  { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: "text" } },
  { sessionId: "s1", update: { sessionUpdate: "no_such_update", content: { type: "text", text: "x" } } },
];

/** The SDK's own schema of the notification (a module its package does not export: found next to its entry). */
async function sdkSchema(): Promise<{ parse(params: unknown): unknown }> {
  const schemas = await import(new URL("../schema/zod.gen.js", import.meta.resolve("@agentclientprotocol/sdk")).href);
  return schemas.zSessionNotification;
}

describe("the hand check of a text chunk", () => {
  it("accepts only what the SDK's schema accepts, and gives the same object", async () => {
    const schema = await sdkSchema();
    let accepted = 0;
    for (const params of SAMPLES) {
      const mine = textChunk(structuredClone(params));
      if (!mine) continue;
      accepted++;
      expect(mine, JSON.stringify(params)).toEqual(schema.parse(structuredClone(params)));
    }
    expect(accepted).toBe(3);
  });

  it("leaves a plain text chunk as it came (no copy per chunk)", () => {
    const params = structuredClone(TEXT);
    expect(textChunk(params)).toBe(params);
  });
});

/** The agent's side of the wire: these messages written to its stdout, then the end; what the SDK would read. */
function wireOf(messages: unknown[], take: (message: Record<string, unknown>) => boolean) {
  const stdout = new PassThrough();
  const wire = acpWire(stdout, new PassThrough(), take);
  stdout.end(messages.map((m) => JSON.stringify(m) + "\n").join(""));
  return wire.readable as unknown as AsyncIterable<{ method?: string; params?: SessionNotification }>;
}

describe("text chunks taken off the wire before the SDK", () => {
  it("reach the handler in the agent's order, while the SDK takes its time with the other updates", async () => {
    const note = (text: string) => ({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } } });
    const messages = [note("one"), { jsonrpc: "2.0", method: "session/update", params: TOOL_CALL }, note("two"), { jsonrpc: "2.0", id: 1, result: { stopReason: "end_turn" } }, note("three")];
    const handled: SessionNotification[] = [];
    const taken = takeTextChunks((n) => handled.push(n));
    // The SDK: reads ahead, and hands each update back to the host's handler a little later, in order.
    const passed: unknown[] = [];
    let handedBack = Promise.resolve();
    for await (const m of wireOf(messages, (m) => taken.take(m))) {
      passed.push(m);
      if (m.method === "session/update") handedBack = handedBack.then(() => new Promise((resolve) => setTimeout(resolve, 5))).then(() => taken.fromSdk(m.params!));
    }
    await handedBack;
    expect(handled.map((n) => (n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text" ? n.update.content.text : n.update.sessionUpdate))).toEqual(["one", "tool_call", "two", "three"]);
    expect(passed).toEqual(messages.slice(1));
  });

  it("take every text chunk themselves while nothing is with the SDK", async () => {
    const messages = [{ jsonrpc: "2.0", method: "session/update", params: TEXT }, { jsonrpc: "2.0", id: 3, method: "session/request_permission", params: {} }, { jsonrpc: "2.0", method: "session/update", params: TEXT }];
    const handled: unknown[] = [];
    const taken = takeTextChunks((n) => handled.push(n));
    const passed: unknown[] = [];
    for await (const m of wireOf(messages, (m) => taken.take(m))) passed.push(m);
    expect(handled).toEqual([TEXT, TEXT]);
    expect(passed).toEqual([messages[1]]);
  });
});

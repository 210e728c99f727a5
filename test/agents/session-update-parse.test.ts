// `session/update` params: plain text chunks are checked by hand, everything else by the ACP SDK's
// own schema. Whatever the params, the result must be what the SDK's schema gives (or an error
// where it gives one): the schema is loaded the way Baton loads it, from the installed SDK.
import { describe, expect, it } from "vitest";
import { loadAgentSdk } from "../../src/agents/acp-sdk.js";

const TEXT = { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Hello **world**" } } };

const VALID: unknown[] = [
  TEXT,
  { sessionId: "s1", update: { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "thinking" } } },
  { sessionId: "s1", update: { sessionUpdate: "user_message_chunk", content: { type: "text", text: "" }, messageId: "m1" } },
  { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x", annotations: { priority: 0.5 } } } },
  { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x", _meta: { a: 1 } } }, _meta: { b: 2 } },
  { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" }, messageId: null } },
  { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" }, unknownField: 1 } },
  // The schema drops a bad message id rather than refusing the chunk.
  { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" }, messageId: 7 } },
  { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "image", data: "aGk=", mimeType: "image/png" } } },
  { sessionId: "s1", update: { sessionUpdate: "tool_call", toolCallId: "t1", title: "Read file", kind: "read", status: "pending" } },
  { sessionId: "s1", update: { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" } },
  { sessionId: "s1", update: { sessionUpdate: "plan", entries: [{ content: "step", priority: "high", status: "pending" }] } },
];

const INVALID: unknown[] = [
  null,
  { sessionId: 1, update: TEXT.update },
  { sessionId: "s1" },
  { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text" } } },
  { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: 5 } } },
  { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: "text" } },
  { sessionId: "s1", update: { sessionUpdate: "no_such_update", content: { type: "text", text: "x" } } },
];

async function parsers() {
  const { parseSessionUpdate } = await loadAgentSdk();
  const schema = await import(new URL("../schema/zod.gen.js", import.meta.resolve("@agentclientprotocol/sdk")).href);
  if (!parseSessionUpdate) throw new Error("the SDK's session/update schema was not found: Baton would check updates slowly");
  return { fast: parseSessionUpdate, sdk: (params: unknown) => schema.zSessionNotification.parse(params) };
}

describe("session/update params", () => {
  it("parse to what the SDK's schema gives, text chunks and every other kind", async () => {
    const { fast, sdk } = await parsers();
    for (const params of VALID) expect(fast(structuredClone(params)), JSON.stringify(params)).toEqual(sdk(structuredClone(params)));
  });

  it("are refused where the SDK's schema refuses them", async () => {
    const { fast, sdk } = await parsers();
    for (const params of INVALID) {
      expect(() => sdk(params), JSON.stringify(params)).toThrow();
      expect(() => fast(params), JSON.stringify(params)).toThrow();
    }
  });

  it("leave a plain text chunk as it came (no copy per chunk)", async () => {
    const { fast } = await parsers();
    const params = structuredClone(TEXT);
    expect(fast(params)).toBe(params);
  });
});

describe("session/update notifications taken off the wire before the SDK", () => {
  it("reach the handler in order; responses, requests and refused updates go on to the SDK in order", async () => {
    const { takeSessionUpdates } = await import("../../src/agents/session-update-parse.js");
    const { fast } = await parsers();
    const messages = [
      { jsonrpc: "2.0", method: "session/update", params: TEXT },
      { jsonrpc: "2.0", id: 3, method: "session/request_permission", params: {} },
      { jsonrpc: "2.0", method: "session/update", params: { sessionId: "s1" } },
      { jsonrpc: "2.0", method: "session/update", params: VALID[8] },
      { jsonrpc: "2.0", id: 1, result: { stopReason: "end_turn" } },
    ];
    const readable = new ReadableStream({
      start(controller) {
        for (const m of messages) controller.enqueue(m);
        controller.close();
      },
    });
    const taken: unknown[] = [];
    const stream = takeSessionUpdates({ readable, writable: new WritableStream<never>() }, fast, (n) => taken.push(n));
    const passed: unknown[] = [];
    for await (const m of stream.readable as unknown as AsyncIterable<unknown>) passed.push(m);
    expect(taken).toEqual([TEXT, fast(VALID[8])]);
    expect(passed).toEqual([messages[1], messages[2], messages[4]]);
  });
});

// Plain text chunks and usage updates of `session/update` are taken off the wire before the ACP SDK
// and checked by hand; every other update goes through the SDK. What the hand check accepts must be exactly what
// the SDK's own schema gives (the schema read here from the installed SDK), and the updates must
// reach the handler in the order the agent sent them, whichever way each went.
import { describe, expect, it } from "vitest";
import type { SessionNotification } from "@agentclientprotocol/sdk";
import { PassThrough } from "node:stream";
import { acpWire } from "../../src/agents/acp-wire.js";
import { handChecked, takeHandCheckedUpdates } from "../../src/agents/session-update-parse.js";

const TEXT = { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Hello **world**" } } };
const TOOL_CALL = { sessionId: "s1", update: { sessionUpdate: "tool_call", toolCallId: "t1", title: "Read file", kind: "read", status: "pending" } };

const USAGE = { sessionId: "s1", update: { sessionUpdate: "usage_update", used: 1_234, size: 200_000, cost: { amount: 0.0036, currency: "USD" } } };

const TEXT_SAMPLES: unknown[] = [
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

const usage = (fields: Record<string, unknown>, outer: Record<string, unknown> = {}) => ({ sessionId: "s1", update: { sessionUpdate: "usage_update", ...fields }, ...outer });

const USAGE_SAMPLES: unknown[] = [
  USAGE,
  usage({ used: 0, size: 0 }),
  usage({ used: 5, size: 10, cost: null }),
  usage({ used: 5, size: 10, cost: { amount: -0.5, currency: "" } }),
  usage({ used: Number.MAX_SAFE_INTEGER + 2, size: 10, cost: { amount: 0, currency: "EUR" } }),
  usage({ used: 5, size: 10, extra: 1 }),
  usage({ used: 5, size: 10, cost: { amount: 1, currency: "USD", extra: 1 } }),
  usage({ used: 5, size: 10 }, { _meta: { a: 1 } }),
  usage({ used: 5, size: 10, _meta: { a: 1 } }),
  usage({ used: 5, size: 10, _meta: null }),
  usage({ used: 5, size: 10, cost: { amount: 1, currency: "USD", _meta: { a: 1 } } }),
  usage({ size: 10 }),
  usage({ used: 5 }),
  usage({ used: "5", size: 10 }),
  usage({ used: 5, size: "10" }),
  usage({ used: -1, size: 10 }),
  usage({ used: 1.5, size: 10 }),
  usage({ used: null, size: 10 }),
  usage({ used: Infinity, size: 10 }),
  usage({ used: 5, size: 10, cost: { amount: 1 } }),
  usage({ used: 5, size: 10, cost: { currency: "USD" } }),
  usage({ used: 5, size: 10, cost: { amount: "1", currency: "USD" } }),
  usage({ used: 5, size: 10, cost: { amount: Infinity, currency: "USD" } }),
  usage({ used: 5, size: 10, cost: { amount: 1, currency: 5 } }),
  usage({ used: 5, size: 10, cost: 3 }),
  usage({ used: 5, size: 10, cost: [] }),
  usage({ used: 5, size: 10, cost: undefined }),
  { sessionId: "s1", update: { sessionUpdate: "usage_update", used: 5, size: 10 }, extra: 1 },
  { sessionId: 7, update: { sessionUpdate: "usage_update", used: 5, size: 10 } },
  { sessionId: "s1", update: [] },
  { sessionId: "s1", update: { sessionUpdate: "usage_updates", used: 5, size: 10 } },
  { sessionId: "s1", update: { sessionUpdate: "constructor", used: 5, size: 10 } },
];

/**
 * Each sample through the hand check and through the SDK's schema: the hand check takes only what
 * the schema accepts and gives back as it was (nothing dropped, defaulted or rebuilt).
 */
async function expectSameAsSdk(samples: unknown[]): Promise<number> {
  const schema = await sdkSchema();
  let accepted = 0;
  for (const params of samples) {
    const mine = handChecked(structuredClone(params));
    if (!mine) continue;
    accepted++;
    expect(mine, JSON.stringify(params)).toStrictEqual(schema.parse(structuredClone(params)));
    expect(mine).toStrictEqual(params);
  }
  return accepted;
}

describe("the hand check of a text chunk", () => {
  it("accepts only what the SDK's schema accepts, and gives the same object", async () => {
    expect(await expectSameAsSdk(TEXT_SAMPLES)).toBe(3);
  });

  it("leaves a plain text chunk as it came (no copy per chunk)", () => {
    const params = structuredClone(TEXT);
    expect(handChecked(params)).toBe(params);
  });
});

describe("the hand check of a usage update", () => {
  it("accepts only what the SDK's schema accepts, and gives the same object", async () => {
    expect(await expectSameAsSdk(USAGE_SAMPLES)).toBe(5);
  });

  it("leaves to the SDK what its schema quietly changes (a cost without currency is dropped, _meta rebuilt)", async () => {
    const schema = await sdkSchema();
    for (const params of [usage({ used: 5, size: 10, cost: { amount: 1 } }), usage({ used: 5, size: 10, _meta: "x" }), usage({ used: 5, size: 10, extra: 1 })]) {
      expect(() => schema.parse(structuredClone(params))).not.toThrow();
      expect(handChecked(params)).toBeUndefined();
    }
  });

  it("leaves a plain usage update as it came", () => {
    const params = structuredClone(USAGE);
    expect(handChecked(params)).toBe(params);
  });
});

/** The agent's side of the wire: these messages written to its stdout, then the end; what the SDK would read. */
function wireOf(messages: unknown[], take: (message: Record<string, unknown>) => boolean) {
  const stdout = new PassThrough();
  const wire = acpWire(stdout, new PassThrough(), take);
  stdout.end(messages.map((m) => `${JSON.stringify(m)}\n`).join(""));
  return wire.readable as unknown as AsyncIterable<{ method?: string; params?: SessionNotification }>;
}

const notify = (params: unknown) => ({ jsonrpc: "2.0", method: "session/update", params });
const note = (text: string) => notify({ sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } });

/** A text chunk's text, a usage update's `used`, or the kind of the update. */
function label(n: SessionNotification): string | number {
  const update = n.update;
  if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") return update.content.text;
  return update.sessionUpdate === "usage_update" ? update.used : update.sessionUpdate;
}

/** Through the stream as the SDK reads it: ahead, handing each update back to the host's handler a little later, in order. */
async function throughSlowSdk(messages: unknown[]): Promise<{ handled: (string | number)[]; passed: unknown[] }> {
  const handled: (string | number)[] = [];
  const taken = takeHandCheckedUpdates((n) => handled.push(label(n)));
  const passed: unknown[] = [];
  let handedBack = Promise.resolve();
  for await (const m of wireOf(messages, (m) => taken.take(m))) {
    passed.push(m);
    if (m.method === "session/update") handedBack = handedBack.then(() => new Promise((resolve) => setTimeout(resolve, 5))).then(() => taken.fromSdk(m.params!));
  }
  await handedBack;
  return { handled, passed };
}

describe("updates taken off the wire before the SDK", () => {
  it("reach the handler in the agent's order, while the SDK takes its time with the other updates", async () => {
    const messages = [note("one"), notify(TOOL_CALL), note("two"), { jsonrpc: "2.0", id: 1, result: { stopReason: "end_turn" } }, note("three")];
    const { handled, passed } = await throughSlowSdk(messages);
    expect(handled).toEqual(["one", "tool_call", "two", "three"]);
    expect(passed).toEqual(messages.slice(1));
  });

  it("keep usage updates in order between text chunks and the updates with the SDK", async () => {
    const messages = [
      notify(usage({ used: 1, size: 10 })),
      note("one"),
      notify(usage({ used: 2, size: 10, cost: { amount: 0.1, currency: "USD" } })),
      notify(TOOL_CALL),
      notify(usage({ used: 3, size: 10 })),
      note("two"),
      notify(usage({ used: 4, size: 10, _meta: { tokens: 4 } })),
      { jsonrpc: "2.0", id: 1, result: { stopReason: "end_turn" } },
      notify(usage({ used: 5, size: 10 })),
    ];
    const { handled, passed } = await throughSlowSdk(messages);
    expect(handled).toEqual([1, "one", 2, "tool_call", 3, "two", 4, 5]);
    expect(passed).toEqual(messages.slice(3));
  });

  it("are all taken while nothing is with the SDK", async () => {
    const messages = [notify(TEXT), { jsonrpc: "2.0", id: 3, method: "session/request_permission", params: {} }, notify(USAGE), notify(TEXT)];
    const handled: unknown[] = [];
    const taken = takeHandCheckedUpdates((n) => handled.push(n));
    const passed: unknown[] = [];
    for await (const m of wireOf(messages, (m) => taken.take(m))) passed.push(m);
    expect(handled).toEqual([TEXT, USAGE, TEXT]);
    expect(passed).toEqual([messages[1]]);
  });
});

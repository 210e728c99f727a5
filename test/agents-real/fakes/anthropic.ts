// A fake of the Anthropic Messages API as Claude Code uses it: `HEAD /` (a reachability probe),
// `POST /v1/messages` with `stream: true` answered as SSE (message_start, content_block_start /
// delta / stop with text_delta or input_json_delta for tool_use, message_delta, message_stop), the
// same without `stream` as one JSON message, and `POST /v1/messages/count_tokens`.
//
// Does not cover: thinking blocks, server tools, prompt caching fields beyond zeros, errors or
// rate limits (a test that needs them adds a route).
import type { ServerResponse } from "node:http";
import { chunks, type Conversation, isToolCall, pause, type Reply } from "./brain.js";
import { asArr, asObj, FakeHttpServer, json, sseSend, sseStart } from "./http.js";

let nextId = 1;
const id = (prefix: string): string => `${prefix}_fake${String(nextId++).padStart(6, "0")}`;

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  return asArr(content)
    .map((b) => (b?.type === "text" ? String(b.text ?? "") : ""))
    .filter(Boolean)
    .join("\n");
}

/** What the person typed: the last text block that is not a harness reminder. */
function promptOf(content: unknown): string {
  if (typeof content === "string") return content;
  const texts = asArr(content).filter((b) => b?.type === "text" && typeof b.text === "string" && !b.text.startsWith("<system-reminder>"));
  return texts.length ? String(texts[texts.length - 1].text) : textOf(content);
}

function isToolResultMessage(m: Record<string, any>): boolean {
  return m.role === "user" && asArr(m.content).some((b) => b?.type === "tool_result");
}

function anthropicConversation(body: Record<string, any>): Conversation {
  const messages = asArr(body.messages).map(asObj);
  let promptIndex = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role === "user" && !isToolResultMessage(messages[i])) {
      promptIndex = i;
      break;
    }
  }
  const after = messages.slice(promptIndex + 1);
  const toolResults = after
    .filter(isToolResultMessage)
    .flatMap((m) => asArr(m.content).filter((b) => b?.type === "tool_result"))
    .map((b) => (typeof b.content === "string" ? b.content : textOf(b.content)));
  const tools = asArr(body.tools).map((t) => String(asObj(t).name ?? ""));
  const content = promptIndex >= 0 ? messages[promptIndex].content : "";
  return {
    lastPrompt: promptOf(content),
    promptTexts:
      typeof content === "string"
        ? [content]
        : asArr(content)
            .filter((b) => b?.type === "text" && typeof b.text === "string")
            .map((b) => String(b.text)),
    turnsSincePrompt: after.filter((m) => m.role === "assistant").length,
    hasTools: tools.length > 0,
    tools,
    toolResults,
  };
}

function usage(): Record<string, number> {
  return { input_tokens: 12, output_tokens: 6, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

function contentOf(reply: Reply, toolId: string): Record<string, unknown> {
  return isToolCall(reply) ? { type: "tool_use", id: toolId, name: reply.tool, input: reply.input } : { type: "text", text: reply.text };
}

async function streamReply(res: ServerResponse, model: string, reply: Reply, delayMs: number): Promise<void> {
  const msgId = id("msg");
  const toolId = id("toolu");
  await pause(reply.delayMs ?? 0);
  sseStart(res);
  sseSend(res, { type: "message_start", message: { id: msgId, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: usage() } }, "message_start");
  if (isToolCall(reply)) {
    sseSend(res, { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: toolId, name: reply.tool, input: {} } }, "content_block_start");
    for (const part of chunks(JSON.stringify(reply.input), 20)) {
      sseSend(res, { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: part } }, "content_block_delta");
    }
  } else {
    sseSend(res, { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, "content_block_start");
    for (const part of chunks(reply.text)) {
      sseSend(res, { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: part } }, "content_block_delta");
      await pause(delayMs);
    }
  }
  sseSend(res, { type: "content_block_stop", index: 0 }, "content_block_stop");
  const stop = isToolCall(reply) ? "tool_use" : "end_turn";
  sseSend(res, { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 6 } }, "message_delta");
  sseSend(res, { type: "message_stop" }, "message_stop");
  res.end();
}

export function fakeAnthropic(): FakeHttpServer {
  const server: FakeHttpServer = new FakeHttpServer([
    { method: "HEAD", path: /^\/$/, handle: (_q, res) => void res.writeHead(200).end() },
    { method: "GET", path: /^\/$/, handle: (_q, res) => json(res, { ok: true }) },
    { method: "POST", path: /^\/v1\/messages\/count_tokens$/, handle: (_q, res) => json(res, { input_tokens: 12 }) },
    {
      method: "POST",
      path: /^\/v1\/messages$/,
      handle: async (_q, res, raw) => {
        const body = asObj(raw);
        const conversation = anthropicConversation(body);
        const reply = server.brain.answer("/v1/messages", body, conversation);
        const model = String(body.model ?? "claude-fake");
        if (body.stream) return streamReply(res, model, reply, server.brain.chunkDelayMs);
        const stop = isToolCall(reply) ? "tool_use" : "end_turn";
        json(res, { id: id("msg"), type: "message", role: "assistant", model, content: [contentOf(reply, id("toolu"))], stop_reason: stop, stop_sequence: null, usage: usage() });
      },
    },
  ]);
  return server;
}

// A fake of the OpenAI Chat Completions API as OpenAI-compatible agents use it (OpenCode through
// the AI SDK's openai-compatible provider, Qwen Code through the OpenAI SDK): `POST
// /v1/chat/completions` with `stream: true` answered as data-only SSE (`chat.completion.chunk`
// deltas: text `content`, or one `tool_calls` entry whose `arguments` arrive in pieces, then a chunk
// with `finish_reason` and usage, then `data: [DONE]`), the same without `stream` as one
// `chat.completion`, and `GET /v1/models`. Side calls that ask for JSON (`response_format`) get
// JSON filled from their schema, other side calls a title cut from the latest prompt.
//
// Does not cover: reasoning content, logprobs, several choices (`n`), errors or rate limits.
import type { ServerResponse } from "node:http";
import { chunks, type Conversation, isToolCall, pause, type Reply, SIDE_CALL_TEXT } from "./brain.js";
import { asArr, asObj, FakeHttpServer, json, sseSend, sseStart } from "./http.js";

let nextId = 1;
const id = (prefix: string): string => `${prefix}_fake${String(nextId++).padStart(6, "0")}`;

/** Text of a message's content: a string, or text parts. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  return asArr(content)
    .map((p) => (typeof p?.text === "string" ? p.text : ""))
    .filter(Boolean)
    .join("\n");
}

function textPieces(content: unknown): string[] {
  if (typeof content === "string") return [content];
  return asArr(content)
    .filter((p) => typeof p?.text === "string")
    .map((p) => String(p.text));
}

function chatConversation(body: Record<string, any>): Conversation {
  const messages = asArr(body.messages).map(asObj);
  let promptIndex = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role === "user" && textOf(messages[i].content).trim()) {
      promptIndex = i;
      break;
    }
  }
  const after = messages.slice(promptIndex + 1);
  const tools = asArr(body.tools).map((t) => String(asObj(asObj(t).function).name ?? ""));
  const pieces = promptIndex >= 0 ? textPieces(messages[promptIndex].content) : [];
  const nonEmpty = pieces.filter((p) => p.trim());
  return {
    lastPrompt: nonEmpty.at(-1) ?? "",
    promptTexts: pieces,
    turnsSincePrompt: after.filter((m) => m.role === "assistant").length,
    hasTools: tools.length > 0,
    tools,
    toolResults: after.filter((m) => m.role === "tool").map((m) => textOf(m.content)),
  };
}

const usage = { prompt_tokens: 12, completion_tokens: 6, total_tokens: 18 };

function chunk(base: Record<string, unknown>, delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }], ...extra };
}

async function streamReply(res: ServerResponse, model: string, reply: Reply, delayMs: number): Promise<void> {
  const base = { id: id("chatcmpl"), created: Math.floor(Date.now() / 1000), model };
  await pause(reply.delayMs ?? 0);
  sseStart(res);
  if (isToolCall(reply)) {
    const callId = id("call");
    sseSend(res, chunk(base, { role: "assistant", content: null, tool_calls: [{ index: 0, id: callId, type: "function", function: { name: reply.tool, arguments: "" } }] }, null));
    for (const part of chunks(JSON.stringify(reply.input), 20)) sseSend(res, chunk(base, { tool_calls: [{ index: 0, function: { arguments: part } }] }, null));
    sseSend(res, chunk(base, {}, "tool_calls", { usage }));
  } else {
    sseSend(res, chunk(base, { role: "assistant", content: "" }, null));
    for (const part of chunks(reply.text)) {
      sseSend(res, chunk(base, { content: part }, null));
      await pause(delayMs);
    }
    sseSend(res, chunk(base, {}, "stop", { usage }));
  }
  res.write("data: [DONE]\n\n");
  res.end();
}

function message(reply: Reply): { message: Record<string, unknown>; finish: string } {
  if (!isToolCall(reply)) return { message: { role: "assistant", content: reply.text }, finish: "stop" };
  const call = { id: id("call"), type: "function", function: { name: reply.tool, arguments: JSON.stringify(reply.input) } };
  return { message: { role: "assistant", content: null, tool_calls: [call] }, finish: "tool_calls" };
}

/** A value that fits a JSON schema a side call asked for. */
function fill(schema: Record<string, any>): unknown {
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const type = String(schema.type ?? "").toLowerCase();
  if (type === "object" || schema.properties) return Object.fromEntries(Object.entries(asObj(schema.properties)).map(([k, v]) => [k, fill(asObj(v))]));
  if (type === "array") return [];
  if (type === "boolean") return false;
  if (type === "number" || type === "integer") return 1;
  return SIDE_CALL_TEXT;
}

/** Words a title model would keep: the prompt's first clause, as short as a title. */
const TITLE_CHARS = 40;

/**
 * The answer to a request that offered no tools: JSON checks get JSON; anything else (OpenCode's
 * title request sends the prompt as its last message) a title made of the latest prompt.
 */
function sideText(body: Record<string, any>, c: Conversation): string {
  const format = asObj(body.response_format);
  if (format.type === "json_schema") return JSON.stringify(fill(asObj(asObj(format.json_schema).schema)));
  if (format.type === "json_object") return "{}";
  const clause = c.lastPrompt
    .split(/[\n;.]/)[0]
    .trim()
    .slice(0, TITLE_CHARS);
  return clause || SIDE_CALL_TEXT;
}

export function fakeChatCompletions(): FakeHttpServer {
  const server: FakeHttpServer = new FakeHttpServer([
    { method: "GET", path: /^\/(v1\/)?models$/, handle: (_q, res) => json(res, { object: "list", data: [{ id: "fake-model", object: "model", created: 0, owned_by: "fake" }] }) },
    {
      method: "POST",
      path: /^\/(v1\/)?chat\/completions$/,
      handle: (_q, res, raw) => {
        const body = asObj(raw);
        const conversation = chatConversation(body);
        const model = String(body.model ?? "fake-model");
        let reply: Reply;
        if (conversation.hasTools) reply = server.brain.answer("/v1/chat/completions", body, conversation);
        else {
          server.brain.record("/v1/chat/completions", body);
          reply = { text: sideText(body, conversation) };
        }
        if (body.stream) return streamReply(res, model, reply, conversation.hasTools ? server.brain.chunkDelayMs : 0);
        const { message: msg, finish } = message(reply);
        json(res, { id: id("chatcmpl"), object: "chat.completion", created: Math.floor(Date.now() / 1000), model, choices: [{ index: 0, message: msg, finish_reason: finish }], usage });
      },
    },
  ]);
  return server;
}

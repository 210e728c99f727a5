// A fake of the OpenAI Responses API as Codex uses it (`wire_api = "responses"`): `POST
// /v1/responses` with `stream: true`, answered as SSE (response.created, response.output_item.added,
// response.output_text.delta, response.output_item.done, response.completed). A tool call is one
// `function_call` item (arguments as a JSON string), a `custom_tool_call` when the agent declared
// the tool as a freeform one (apply_patch), or a client-executed `tool_search_call` (Codex offers
// its MCP tools only through that search; the tools found come back in `tool_search_output` and
// count as offered from then on). `GET /v1/models` lists the fake model.
//
// Does not cover: reasoning items, web search, the Chat Completions API, websockets (Codex falls
// back to HTTP when the upgrade fails), errors or rate limits.
import type { ServerResponse } from "node:http";
import { chunks, type Conversation, isToolCall, pause, type Reply } from "./brain.js";
import { asArr, asObj, FakeHttpServer, json, sseSend, sseStart } from "./http.js";

let nextId = 1;
const id = (prefix: string): string => `${prefix}_fake${String(nextId++).padStart(6, "0")}`;

const MODEL_TURN_ITEMS = new Set(["function_call", "custom_tool_call", "local_shell_call", "tool_search_call"]);
const TOOL_OUTPUTS = new Set(["function_call_output", "custom_tool_call_output", "tool_search_output"]);

/** Tool definitions flattened: a namespaced one as `namespace/name` (`mcp__baton/prepare_handover`), and whether it is freeform (custom). */
function toolDefs(tools: unknown[], namespace = ""): Array<{ name: string; freeform: boolean }> {
  return tools.flatMap((t) => {
    const tool = asObj(t);
    const name = String(tool.name ?? "");
    if (Array.isArray(tool.tools)) return toolDefs(tool.tools, name);
    return [{ name: `${namespace ? `${namespace}/` : ""}${name || String(tool.type ?? "")}`, freeform: tool.type === "custom" }];
  });
}

/** Every tool offered: the request's `tools`, `additional_tools` items and searched-for ones. */
function offeredDefs(body: Record<string, any>): Array<{ name: string; freeform: boolean }> {
  const input = asArr(body.input).map(asObj);
  const found = input.filter((i) => i.type === "tool_search_output" || i.type === "additional_tools").flatMap((i) => asArr(i.tools));
  return toolDefs([...asArr(body.tools), ...found]);
}

/** What the person typed: the last text of the message (Codex sends context as earlier items). */
function promptOf(item: Record<string, any>): string {
  if (typeof item.content === "string") return item.content;
  const texts = asArr(item.content).filter((c) => typeof c?.text === "string" && c.text.trim());
  return texts.length ? String(texts[texts.length - 1].text) : "";
}

function responsesConversation(body: Record<string, any>): Conversation {
  const input = typeof body.input === "string" ? [{ type: "message", role: "user", content: body.input }] : asArr(body.input).map(asObj);
  let promptIndex = -1;
  for (let i = input.length - 1; i >= 0; i--) {
    if ((input[i].type ?? "message") === "message" && input[i].role === "user") {
      promptIndex = i;
      break;
    }
  }
  const after = input.slice(promptIndex + 1);
  // Tools come in the request's `tools`, in `additional_tools` input items (newer models) and, once
  // searched for, in `tool_search_output` items.
  const tools = offeredDefs(body).map((t) => t.name);
  const prompt = promptIndex >= 0 ? input[promptIndex] : {};
  return {
    lastPrompt: promptOf(prompt),
    promptTexts:
      typeof prompt.content === "string"
        ? [prompt.content]
        : asArr(prompt.content)
            .filter((c) => typeof c?.text === "string")
            .map((c) => String(c.text)),
    turnsSincePrompt: after.filter((i) => MODEL_TURN_ITEMS.has(i.type) || (i.type === "message" && i.role === "assistant")).length,
    hasTools: tools.length > 0,
    tools,
    toolResults: after.filter((i) => TOOL_OUTPUTS.has(i.type)).map((i) => (typeof i.output === "string" ? i.output : JSON.stringify(i.output ?? i.tools ?? null))),
  };
}

/** The offered name of a tool the script names plainly (`exec_command` offered as `functions/exec_command`). */
function offered(tool: string, tools: string[]): string {
  return tools.includes(tool) ? tool : (tools.find((t) => t.endsWith(`/${tool}`)) ?? tool);
}

function outputItem(reply: Reply, freeform: Set<string>, tools: string[]): Record<string, unknown> {
  if (!isToolCall(reply)) {
    return { type: "message", id: id("msg"), role: "assistant", status: "completed", content: [{ type: "output_text", text: reply.text, annotations: [] }] };
  }
  if (reply.tool === "tool_search") {
    return { type: "tool_search_call", id: id("tsc"), call_id: id("call"), execution: "client", status: "completed", arguments: reply.input };
  }
  const tool = offered(reply.tool, tools);
  const [namespace, name] = tool.includes("/") ? tool.split("/", 2) : [undefined, tool];
  if (freeform.has(tool)) {
    return { type: "custom_tool_call", id: id("ctc"), call_id: id("call"), ...(namespace ? { namespace } : {}), name, input: String(reply.input.input ?? ""), status: "completed" };
  }
  return { type: "function_call", id: id("fc"), call_id: id("call"), ...(namespace ? { namespace } : {}), name, arguments: JSON.stringify(reply.input), status: "completed" };
}

async function streamReply(res: ServerResponse, model: string, reply: Reply, freeform: Set<string>, tools: string[], delayMs: number): Promise<void> {
  const respId = id("resp");
  const base = { id: respId, object: "response", created_at: Math.floor(Date.now() / 1000), model };
  const item = outputItem(reply, freeform, tools);
  await pause(reply.delayMs ?? 0);
  sseStart(res);
  sseSend(res, { type: "response.created", response: { ...base, status: "in_progress", output: [] } }, "response.created");
  if (item.type === "message") {
    sseSend(res, { type: "response.output_item.added", output_index: 0, item: { ...item, status: "in_progress", content: [] } }, "response.output_item.added");
    sseSend(res, { type: "response.content_part.added", item_id: item.id, output_index: 0, content_index: 0, part: { type: "output_text", text: "", annotations: [] } }, "response.content_part.added");
    for (const part of chunks((reply as { text: string }).text)) {
      sseSend(res, { type: "response.output_text.delta", item_id: item.id, output_index: 0, content_index: 0, delta: part }, "response.output_text.delta");
      await pause(delayMs);
    }
  } else {
    sseSend(res, { type: "response.output_item.added", output_index: 0, item }, "response.output_item.added");
  }
  sseSend(res, { type: "response.output_item.done", output_index: 0, item }, "response.output_item.done");
  const usage = { input_tokens: 12, input_tokens_details: { cached_tokens: 0 }, output_tokens: 6, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 18 };
  sseSend(res, { type: "response.completed", response: { ...base, status: "completed", output: [item], usage } }, "response.completed");
  res.end();
}

export function fakeOpenAI(): FakeHttpServer {
  const server: FakeHttpServer = new FakeHttpServer([
    { method: "GET", path: /^\/v1\/models$/, handle: (_q, res) => json(res, { object: "list", data: [{ id: "fake-model", object: "model", owned_by: "fake" }], models: [] }) },
    {
      method: "POST",
      path: /^\/v1\/responses$/,
      handle: (_q, res, raw) => {
        const body = asObj(raw);
        const conversation = responsesConversation(body);
        const reply = server.brain.answer("/v1/responses", body, conversation);
        const freeform = new Set(
          offeredDefs(body)
            .filter((t) => t.freeform)
            .map((t) => t.name),
        );
        return streamReply(res, String(body.model ?? "fake-model"), reply, freeform, conversation.tools, server.brain.chunkDelayMs);
      },
    },
  ]);
  return server;
}

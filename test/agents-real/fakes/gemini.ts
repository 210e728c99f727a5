// A fake of the Gemini API (`v1beta`) as Gemini CLI uses it: `POST
// /v1beta/models/<model>:streamGenerateContent?alt=sse` answered as data-only SSE (candidates with
// text parts, or one `functionCall` part, then `finishReason: STOP`), `:generateContent` for the
// CLI's side calls (model routing and "who speaks next" checks ask for JSON: the fake fills the
// requested schema, choosing the flash model and the user as next speaker) and `:countTokens`.
//
// Does not cover: thoughts, grounding, code execution, errors or quota answers.
import type { ServerResponse } from "node:http";
import { chunks, type Conversation, isToolCall, pause, type Reply, SIDE_CALL_TEXT } from "./brain.js";
import { asArr, asObj, FakeHttpServer, json, sseSend, sseStart } from "./http.js";

function partsText(parts: unknown): string {
  return asArr(parts)
    .map((p) => (typeof p?.text === "string" ? p.text : ""))
    .filter(Boolean)
    .join("\n");
}

/** What the person typed: the last text part (the CLI puts its session context in an earlier one). */
function promptOf(parts: unknown): string {
  const texts = asArr(parts).filter((p) => typeof p?.text === "string" && p.text.trim());
  return texts.length ? String(texts[texts.length - 1].text) : "";
}

const hasResponse = (c: Record<string, any>): boolean => asArr(c.parts).some((p) => p?.functionResponse);

function geminiConversation(body: Record<string, any>): Conversation {
  const contents = asArr(body.contents).map(asObj);
  let promptIndex = -1;
  for (let i = contents.length - 1; i >= 0; i--) {
    if (contents[i].role === "user" && !hasResponse(contents[i]) && partsText(contents[i].parts).trim()) {
      promptIndex = i;
      break;
    }
  }
  const after = contents.slice(promptIndex + 1);
  const tools = asArr(body.tools).flatMap((t) => asArr(asObj(t).functionDeclarations).map((d) => String(asObj(d).name ?? "")));
  const parts = promptIndex >= 0 ? asArr(contents[promptIndex].parts) : [];
  return {
    lastPrompt: promptOf(parts),
    promptTexts: parts.filter((p) => typeof p?.text === "string").map((p) => String(p.text)),
    turnsSincePrompt: after.filter((c) => c.role === "model").length,
    hasTools: tools.length > 0,
    tools,
    toolResults: after.flatMap((c) =>
      asArr(c.parts)
        .filter((p) => p?.functionResponse)
        .map((p) => JSON.stringify(p.functionResponse.response ?? {})),
    ),
  };
}

const usage = { promptTokenCount: 12, candidatesTokenCount: 6, totalTokenCount: 18 };

async function streamReply(res: ServerResponse, model: string, reply: Reply, delayMs: number): Promise<void> {
  await pause(reply.delayMs ?? 0);
  sseStart(res);
  if (isToolCall(reply)) {
    sseSend(res, {
      candidates: [{ content: { role: "model", parts: [{ functionCall: { name: reply.tool, args: reply.input } }] }, finishReason: "STOP", index: 0 }],
      usageMetadata: usage,
      modelVersion: model,
    });
  } else {
    const pieces = chunks(reply.text);
    for (const [i, piece] of pieces.entries()) {
      const last = i === pieces.length - 1;
      sseSend(res, {
        candidates: [{ content: { role: "model", parts: [{ text: piece }] }, ...(last ? { finishReason: "STOP" } : {}), index: 0 }],
        ...(last ? { usageMetadata: usage } : {}),
        modelVersion: model,
      });
      await pause(delayMs);
    }
  }
  res.end();
}

/** A value that fits a JSON schema the CLI asked for, preferring the cheap and quiet choices. */
function fill(schema: Record<string, any>, key = ""): unknown {
  const type = String(schema.type ?? "").toLowerCase();
  if (Array.isArray(schema.enum)) {
    const preferred = ["user", "flash"].find((p) => schema.enum.some((e: string) => String(e).toLowerCase().includes(p)));
    return preferred ? schema.enum.find((e: string) => String(e).toLowerCase().includes(preferred)) : schema.enum[0];
  }
  if (type === "object" || schema.properties) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(asObj(schema.properties))) out[k] = fill(asObj(v), k);
    return out;
  }
  if (type === "array") return [];
  if (type === "boolean") return false;
  if (type === "number" || type === "integer") return typeof schema.minimum === "number" ? schema.minimum : 1;
  return key === "model_choice" ? "flash" : SIDE_CALL_TEXT;
}

export function fakeGemini(): FakeHttpServer {
  const server: FakeHttpServer = new FakeHttpServer([
    {
      method: "POST",
      path: /^\/v1beta\/models\/[^/:]+:streamGenerateContent$/,
      handle: (_q, res, raw, url) => {
        const body = asObj(raw);
        const conversation = geminiConversation(body);
        const reply = server.brain.answer(url.pathname, body, conversation);
        return streamReply(res, /models\/([^:]+)/.exec(url.pathname)?.[1] ?? "gemini-fake", reply, server.brain.chunkDelayMs);
      },
    },
    {
      method: "POST",
      path: /^\/v1beta\/models\/[^/:]+:generateContent$/,
      handle: (_q, res, raw, url) => {
        const body = asObj(raw);
        server.brain.record(url.pathname, body);
        const config = asObj(body.generationConfig);
        const schema = asObj(config.responseJsonSchema ?? config.responseSchema);
        const text = config.responseMimeType === "application/json" ? JSON.stringify(fill(schema)) : SIDE_CALL_TEXT;
        json(res, { candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason: "STOP", index: 0 }], usageMetadata: usage });
      },
    },
    { method: "POST", path: /^\/v1beta\/models\/[^/:]+:countTokens$/, handle: (_q, res) => json(res, { totalTokens: 12 }) },
  ]);
  return server;
}

// Streamed text is most of what an agent sends: one `session/update` notification per chunk. The
// ACP SDK checks each against the protocol's whole schema (a union of every kind of update, with
// intersections) before any handler sees it: a tenth of Baton's CPU while answers streamed. So the
// updates are taken off the wire before the SDK (takeSessionUpdates); a plain text chunk is checked
// here by hand, field by field, to the same result, and every other update by the SDK's schema.
import type { SessionNotification } from "@agentclientprotocol/sdk";

const TEXT_CHUNK_KINDS = new Set(["agent_message_chunk", "agent_thought_chunk", "user_message_chunk"]);

type Schema = { parse(params: unknown): unknown };

/** A parser for `session/update` params: text chunks by hand, anything else by `schema`. */
export function sessionUpdateParser(schema: Schema): (params: unknown) => SessionNotification {
  return (params) => textChunk(params) ?? (schema.parse(params) as SessionNotification);
}

/**
 * A plain text chunk as it is (the schema would give the same object); undefined for anything
 * else, an extra field included (annotations, _meta: the schema checks those).
 */
function textChunk(params: unknown): SessionNotification | undefined {
  if (!isObject(params) || typeof params.sessionId !== "string" || !isObject(params.update) || !onlyKeys(params, 2)) return undefined;
  const update = params.update;
  if (typeof update.sessionUpdate !== "string" || !TEXT_CHUNK_KINDS.has(update.sessionUpdate)) return undefined;
  const content = update.content;
  if (!isObject(content) || content.type !== "text" || typeof content.text !== "string" || !onlyKeys(content, 2)) return undefined;
  if (update.messageId === undefined ? !onlyKeys(update, 2) : typeof update.messageId !== "string" || !onlyKeys(update, 3)) return undefined;
  return params as unknown as SessionNotification;
}

function onlyKeys(value: Record<string, unknown>, count: number): boolean {
  let keys = 0;
  for (const key in value) if (++keys > count || !Object.hasOwn(value, key)) return false;
  return keys === count;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

interface MessageStream {
  readable: ReadableStream<unknown>;
  writable: WritableStream<never>;
}

/**
 * Hands each `session/update` to `onUpdate` as it comes off the wire, and the SDK the rest: the SDK
 * would check every update against its schema once more on its way to our handler, whatever the
 * handler's own parser. Order is kept (one message at a time, as they arrive); an update the parser
 * refuses goes on to the SDK, which deals with it as it always did.
 */
export function takeSessionUpdates<S extends MessageStream>(stream: S, parse: (params: unknown) => SessionNotification, onUpdate: (notification: SessionNotification) => void): S {
  const take = new TransformStream<unknown, unknown>({
    transform(message, controller) {
      if (isObject(message) && message.method === "session/update" && !("id" in message)) {
        let notification: SessionNotification | undefined;
        try {
          notification = parse(message.params);
        } catch {
          controller.enqueue(message);
          return;
        }
        onUpdate(notification);
        return;
      }
      controller.enqueue(message);
    },
  });
  return { ...stream, readable: stream.readable.pipeThrough(take) };
}

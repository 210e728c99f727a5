// Streamed text is most of what an agent sends: one `session/update` notification per chunk. The
// ACP SDK checks each against the protocol's whole schema (a union of every kind of update, with
// intersections) before any handler sees it: a tenth of Baton's CPU while answers streamed. So a
// plain text chunk is taken off the wire before the SDK and checked here by hand, field by field;
// every other update goes through the SDK and its schema, as before.
import type { SessionNotification } from "@agentclientprotocol/sdk";

const TEXT_CHUNK_KINDS = new Set(["agent_message_chunk", "agent_thought_chunk", "user_message_chunk"]);

interface MessageStream {
  readable: ReadableStream<unknown>;
  writable: WritableStream<never>;
}

export interface TakenUpdates<S> {
  /** The stream for the SDK: everything but the text chunks taken. */
  stream: S;
  /** What the SDK's `session/update` handler calls with the updates it was left. */
  fromSdk(notification: SessionNotification): void;
}

/**
 * Hands plain text chunks to `onUpdate` as they come off the wire and the rest to the SDK. Order is
 * kept: while an update is with the SDK, the chunks after it go the same way (an update the SDK
 * refuses leaves them all with the SDK from then on, slower but in order).
 */
export function takeTextChunks<S extends MessageStream>(stream: S, onUpdate: (notification: SessionNotification) => void): TakenUpdates<S> {
  let withSdk = 0;
  const take = new TransformStream<unknown, unknown>({
    transform(message, controller) {
      if (isObject(message) && message.method === "session/update" && !("id" in message)) {
        const chunk = withSdk === 0 ? textChunk(message.params) : undefined;
        if (chunk) return onUpdate(chunk);
        withSdk++;
      }
      controller.enqueue(message);
    },
  });
  return {
    stream: { ...stream, readable: stream.readable.pipeThrough(take) },
    fromSdk(notification) {
      withSdk--;
      onUpdate(notification);
    },
  };
}

/**
 * A plain text chunk as it is (the SDK's schema gives the same object); undefined for anything
 * else, an extra field included (annotations, _meta: the schema checks those).
 */
export function textChunk(params: unknown): SessionNotification | undefined {
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

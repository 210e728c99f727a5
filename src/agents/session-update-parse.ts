// Streamed text is most of what an agent sends: one `session/update` notification per chunk. The
// ACP SDK checks each against the protocol's whole schema (a union of every kind of update, with
// intersections) before any handler sees it: a tenth of Baton's CPU while answers streamed. So a
// plain text chunk is taken off the wire before the SDK and checked here by hand, field by field;
// every other update goes through the SDK and its schema, as before.
import type { SessionNotification } from "@agentclientprotocol/sdk";

const TEXT_CHUNK_KINDS = new Set(["agent_message_chunk", "agent_thought_chunk", "user_message_chunk"]);

export interface UpdateTaker {
  /** Offered every message off the wire: true when it was a text chunk, handed to `onUpdate` already. */
  take(message: Record<string, unknown>): boolean;
  /** What the SDK's `session/update` handler calls with the updates it was left. */
  fromSdk(notification: SessionNotification): void;
}

/**
 * Hands plain text chunks to `onUpdate` as they come off the wire; the rest goes to the SDK. Order
 * is kept: while an update is with the SDK, the chunks after it go the same way (an update the SDK
 * refuses leaves them all with the SDK from then on, slower but in order).
 */
export function takeTextChunks(onUpdate: (notification: SessionNotification) => void): UpdateTaker {
  let withSdk = 0;
  return {
    take(message) {
      if (message.method !== "session/update" || "id" in message) return false;
      const chunk = withSdk === 0 ? textChunk(message.params) : undefined;
      if (chunk) {
        onUpdate(chunk);
        return true;
      }
      withSdk++;
      return false;
    },
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

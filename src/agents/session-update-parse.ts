// Streamed text is most of what an agent sends: one `session/update` notification per chunk. The
// ACP SDK checks each against the protocol's whole schema (a union of every kind of update, with
// intersections), which was a tenth of Baton's CPU while answers streamed. A plain text chunk is
// checked here by hand, field by field, to the same result; every other update goes through the
// SDK's schema.
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

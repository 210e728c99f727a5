// Streamed text is most of what an agent sends: one `session/update` notification per chunk, and
// after each turn a `usage_update`. The ACP SDK checks each against the protocol's whole schema (a
// union of every kind of update, with intersections), twice (its session router and then the
// handler), before any handler sees it: a tenth of Baton's CPU while answers streamed, and most of
// the SDK's work for a short turn. So these two kinds are taken off the wire before the SDK and
// checked here by hand, field by field, when they are plain (exactly what the schema would give
// back unchanged); every other update, and anything unusual in these, goes through the SDK and its
// schema, as before.
import type { SessionNotification } from "@agentclientprotocol/sdk";

type Fields = Record<string, unknown>;

/** The kinds of update checked by hand: each check says whether the update object is plain. */
const HAND_CHECKED = new Map<string, (update: Fields) => boolean>([
  ["agent_message_chunk", isPlainTextChunk],
  ["agent_thought_chunk", isPlainTextChunk],
  ["user_message_chunk", isPlainTextChunk],
  ["usage_update", isPlainUsageUpdate],
]);

export interface UpdateTaker {
  /** Offered every message off the wire: true when it was a hand-checked update, handed to `onUpdate` already. */
  take(message: Record<string, unknown>): boolean;
  /** What the SDK's `session/update` handler calls with the updates it was left. */
  fromSdk(notification: SessionNotification): void;
}

/**
 * Hands plain text chunks and usage updates to `onUpdate` as they come off the wire; the rest goes
 * to the SDK. Order is kept: while an update is with the SDK, the ones after it go the same way (an
 * update the SDK refuses leaves them all with the SDK from then on, slower but in order).
 */
export function takeHandCheckedUpdates(onUpdate: (notification: SessionNotification) => void): UpdateTaker {
  let withSdk = 0;
  return {
    take(message) {
      if (message.method !== "session/update" || "id" in message) return false;
      const plain = withSdk === 0 ? handChecked(message.params) : undefined;
      if (plain) {
        onUpdate(plain);
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
 * A plain text chunk or usage update as it is (the SDK's schema gives the same object, so no copy
 * is made); undefined for anything else, an extra field included (_meta, annotations: the schema
 * checks and rebuilds those).
 */
export function handChecked(params: unknown): SessionNotification | undefined {
  if (!isObject(params) || typeof params.sessionId !== "string" || !isObject(params.update) || !onlyKeys(params, 2)) return undefined;
  const update = params.update;
  const isPlain = typeof update.sessionUpdate === "string" ? HAND_CHECKED.get(update.sessionUpdate) : undefined;
  return isPlain?.(update) ? (params as unknown as SessionNotification) : undefined;
}

/** `{sessionUpdate, content: {type: "text", text}, messageId?}`. */
function isPlainTextChunk(update: Fields): boolean {
  const content = update.content;
  if (!isObject(content) || content.type !== "text" || typeof content.text !== "string" || !onlyKeys(content, 2)) return false;
  return update.messageId === undefined ? onlyKeys(update, 2) : typeof update.messageId === "string" && onlyKeys(update, 3);
}

/**
 * `{sessionUpdate, used, size, cost?}`: token counts are whole and not negative; a cost is null or
 * `{amount, currency}` (a malformed one the schema would quietly drop, so that goes to the SDK).
 */
function isPlainUsageUpdate(update: Fields): boolean {
  if (!isTokenCount(update.used) || !isTokenCount(update.size)) return false;
  if (!Object.hasOwn(update, "cost")) return onlyKeys(update, 3);
  const cost = update.cost;
  if (cost !== null && !(isObject(cost) && Number.isFinite(cost.amount) && typeof cost.currency === "string" && onlyKeys(cost, 2))) return false;
  return onlyKeys(update, 4);
}

function isTokenCount(value: unknown): boolean {
  return Number.isInteger(value) && (value as number) >= 0;
}

function onlyKeys(value: Fields, count: number): boolean {
  let keys = 0;
  for (const key in value) if (++keys > count || !Object.hasOwn(value, key)) return false;
  return keys === count;
}

function isObject(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

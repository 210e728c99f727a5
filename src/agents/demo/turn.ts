// A turn of the demo agent as its behaviours see it, and how they answer: text streamed in chunks
// as a real model would, and any other session update.
import * as acp from "@agentclientprotocol/sdk";
import type { DemoSessionStore } from "./store.js";
import { sleep } from "./sleep.js";

export const CHUNK_DELAY_MS = 25;

type Client = acp.AgentContext;

export interface Turn {
  client: Client;
  sessionId: string;
  signal: AbortSignal;
  replied: string[];
  store: DemoSessionStore;
  /** Reports the first chunk of the answer (bench timing), then is cleared. */
  firstChunk?: () => void;
  streamEnded?: () => void;
}

/** Streams `text` as several agent_message_chunk updates, as a real model would. */
export async function say(turn: Turn, text: string, chunks = 4): Promise<void> {
  const size = Math.max(1, Math.ceil(text.length / chunks));
  for (let i = 0; i < text.length; i += size) {
    if (turn.signal.aborted) return;
    const piece = text.slice(i, i + size);
    turn.replied.push(piece);
    await chunk(turn, piece);
    if (i + size < text.length) await sleep(CHUNK_DELAY_MS);
  }
}

export function chunk(turn: Turn, text: string): Promise<void> {
  turn.firstChunk?.();
  turn.firstChunk = undefined;
  return update(turn.client, turn.sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
}

export function update(client: Client, sessionId: string, update: acp.SessionUpdate): Promise<void> {
  return client.notify(acp.methods.client.session.update, { sessionId, update });
}

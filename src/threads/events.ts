// The events of the thread registry. Each line of the log is one event; the registry is what
// replaying them in order gives. Bump EVENT_SCHEMA_VERSION when an event's meaning changes.
import { randomBytes } from "node:crypto";
import type { SubagentEventBody } from "./subagents.js";

export const EVENT_SCHEMA_VERSION = 1;

interface EventBase {
  v: number;
  id: string;
  /** ISO time the event was recorded. */
  at: string;
  thread: string;
}

export type ThreadEventBody =
  | { type: "thread_created"; workspace: string; agent: string; profile?: string; session?: string; origin?: string }
  | { type: "route_attached"; route: string }
  | { type: "route_detached"; route: string }
  | { type: "session_observed"; session: string }
  | { type: "host_changed"; agent: string; profile?: string }
  | { type: "thread_closed"; reason: string }
  | { type: "context_transfer"; fromRuntime: string; fromSession: string; briefPath: string }
  | { type: "audit"; action: string; platform?: string; user?: string; route?: string; outcome: string; session?: string; detail?: string }
  | SubagentEventBody;

export type ThreadEvent = EventBase & ThreadEventBody;

export function newEventId(): string {
  return `ev_${Date.now().toString(36)}${randomBytes(4).toString("hex")}`;
}

export function newThreadId(): string {
  return `th_${randomBytes(6).toString("hex")}`;
}

export function makeEvent(thread: string, body: ThreadEventBody, now: Date = new Date()): ThreadEvent {
  return { v: EVENT_SCHEMA_VERSION, id: newEventId(), at: now.toISOString(), thread, ...body } as ThreadEvent;
}

// Room operations of the Matrix fake, shared by its HTTP endpoints and the test's direct helpers:
// create (with presets, invites, initial state such as m.room.encryption), invite, join, leave,
// send, redact, relations, a power level changed. Membership rules are the ones a client can observe: only an invited
// user joins a private room; only a member sends; only a member invites.
import type { Account, ClientEvent, HomeserverState, Room, StoredEvent } from "./state.js";

export class MatrixError extends Error {
  constructor(
    readonly status: number,
    readonly errcode: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export interface CreateRoomOptions {
  preset?: "private_chat" | "trusted_private_chat" | "public_chat";
  invite?: string[];
  name?: string;
  is_direct?: boolean;
  initial_state?: Array<{ type: string; state_key?: string; content: Record<string, any> }>;
}

export function createRoom(state: HomeserverState, creator: string, options: CreateRoomOptions): Room {
  const room = state.createRoom(creator);
  const emit = (type: string, content: Record<string, any>, stateKey = "") => state.appendEvent(room, { type, sender: creator, content, state_key: stateKey });
  emit("m.room.create", { room_version: "10", creator });
  emit("m.room.member", { membership: "join", displayname: state.accounts.get(creator)?.displayName }, creator);
  const invitees = options.invite ?? [];
  emit("m.room.power_levels", {
    users: Object.fromEntries([creator, ...(options.preset === "trusted_private_chat" ? invitees : [])].map((u) => [u, 100])),
    users_default: 0,
    events_default: 0,
    state_default: 50,
    invite: 0,
    redact: 50,
  });
  emit("m.room.join_rules", { join_rule: options.preset === "public_chat" ? "public" : "invite" });
  emit("m.room.history_visibility", { history_visibility: "shared" });
  for (const initial of options.initial_state ?? []) emit(initial.type, initial.content, initial.state_key ?? "");
  if (options.name) emit("m.room.name", { name: options.name });
  for (const invitee of invitees) invite(state, room, creator, invitee, options.is_direct);
  return room;
}

export function invite(state: HomeserverState, room: Room, sender: string, userId: string, isDirect = false): void {
  requireJoined(state, room, sender);
  const account = requireAccount(state, userId);
  const current = state.membership(room, userId);
  if (current === "join") throw new MatrixError(403, "M_FORBIDDEN", `${userId} is already in the room`);
  state.appendEvent(room, { type: "m.room.member", sender, state_key: userId, content: { membership: "invite", displayname: account.displayName, ...(isDirect ? { is_direct: true } : {}) } });
}

export function join(state: HomeserverState, room: Room, userId: string): void {
  const current = state.membership(room, userId);
  if (current === "join") return;
  const rule = state.stateEvent(room, "m.room.join_rules")?.content.join_rule;
  if (current !== "invite" && rule !== "public") throw new MatrixError(403, "M_FORBIDDEN", "You are not invited to this room.");
  state.appendEvent(room, { type: "m.room.member", sender: userId, state_key: userId, content: { membership: "join", displayname: state.accounts.get(userId)?.displayName } });
}

/** Leaving an invite is declining it. */
export function leave(state: HomeserverState, room: Room, userId: string): void {
  const current = state.membership(room, userId);
  if (current !== "join" && current !== "invite") throw new MatrixError(403, "M_FORBIDDEN", "You are not in this room.");
  state.appendEvent(room, { type: "m.room.member", sender: userId, state_key: userId, content: { membership: "leave" } });
}

export function sendEvent(state: HomeserverState, room: Room, sender: string, type: string, content: Record<string, any>, txn?: StoredEvent["txn"], stateKey?: string): ClientEvent {
  requireJoined(state, room, sender);
  return state.appendEvent(room, { type, sender, content, ...(stateKey !== undefined ? { state_key: stateKey } : {}) }, txn).event;
}

/** A member changes someone's power level: a new m.room.power_levels state event (as Element's room settings send). */
export function setPowerLevel(state: HomeserverState, room: Room, sender: string, userId: string, level: number): ClientEvent {
  const levels = state.stateEvent(room, "m.room.power_levels")?.content ?? {};
  return sendEvent(state, room, sender, "m.room.power_levels", { ...levels, users: { ...levels.users, [userId]: level } }, undefined, "");
}

export function redactEvent(state: HomeserverState, room: Room, sender: string, eventId: string, reason: string | undefined, txn?: StoredEvent["txn"]): ClientEvent {
  requireJoined(state, room, sender);
  const target = state.findEvent(room, eventId);
  if (!target) throw new MatrixError(404, "M_NOT_FOUND", "Event not found.");
  const content = { redacts: eventId, ...(reason ? { reason } : {}) };
  const redaction = state.appendEvent(room, { type: "m.room.redaction", sender, content, redacts: eventId }, txn).event;
  state.redact(room, target, redaction);
  return redaction;
}

/** Events relating to `eventId` (unencrypted `m.relates_to`), optionally of one relation and event type. */
export function relations(_state: HomeserverState, room: Room, eventId: string, relType?: string, eventType?: string): StoredEvent[] {
  return room.timeline.filter((stored) => {
    const relation = stored.event.content["m.relates_to"];
    return relation?.event_id === eventId && (!relType || relation.rel_type === relType) && (!eventType || stored.event.type === eventType);
  });
}

export function requireRoom(state: HomeserverState, roomId: string): Room {
  const room = state.rooms.get(roomId);
  if (!room) throw new MatrixError(404, "M_NOT_FOUND", `Unknown room ${roomId}`);
  return room;
}

export function requireJoined(state: HomeserverState, room: Room, userId: string): void {
  if (state.membership(room, userId) !== "join") throw new MatrixError(403, "M_FORBIDDEN", `${userId} is not in the room ${room.roomId}`);
}

function requireAccount(state: HomeserverState, userId: string): Account {
  const account = state.accounts.get(userId);
  if (!account) throw new MatrixError(404, "M_NOT_FOUND", `Unknown user ${userId}`);
  return account;
}

// `/sync` for the Matrix fake: one response for one device from a `since` position, as a
// homeserver builds it — joined rooms (timeline, state, typing, member counts), invites with
// stripped state, rooms left, to-device messages (deleted once a later `since` acknowledges them),
// device-list changes of users sharing a room, one-time-key counts. Filters are stored but not
// applied (every room event is sent).
import type { Account, ClientEvent, Device, HomeserverState, Room, StoredEvent } from "./state.js";

/** Events an initial sync (or a newly joined room) shows in its timeline; older ones go to `state`. */
const TIMELINE_LIMIT = 50;
const STRIPPED_STATE_TYPES = ["m.room.create", "m.room.name", "m.room.join_rules", "m.room.encryption", "m.room.canonical_alias"];

export interface SyncResult {
  body: Record<string, any>;
  hasContent: boolean;
}

export function buildSync(state: HomeserverState, account: Account, device: Device, since: number | undefined): SyncResult {
  const initial = since === undefined;
  const from = since ?? 0;
  if (!initial) device.inbox.splice(0, device.inbox.length, ...device.inbox.filter((m) => m.position > from));

  const join: Record<string, any> = {};
  const invite: Record<string, any> = {};
  const leave: Record<string, any> = {};
  const changedUsers = new Set<string>();
  for (const room of state.rooms.values()) {
    const membership = state.membership(room, account.userId);
    const membershipAt = state.membershipPosition(room, account.userId);
    if (membership === "join") {
      const section = joinedRoom(state, room, device, initial || membershipAt > from ? undefined : from);
      if (section) join[room.roomId] = section;
      if (!initial) for (const userId of newlyJoinedMates(state, room, account.userId, from, membershipAt)) changedUsers.add(userId);
    } else if (membership === "invite" && (initial || membershipAt > from)) {
      invite[room.roomId] = { invite_state: { events: strippedState(state, room, account.userId) } };
    } else if ((membership === "leave" || membership === "ban") && !initial && membershipAt > from) {
      const events = room.timeline.filter((e) => e.position > from && e.position <= membershipAt).map((e) => clientEvent(e, device));
      leave[room.roomId] = { timeline: { events, limited: false }, state: { events: [] } };
    }
  }
  if (!initial) {
    const mates = state.roomMatesOf(account.userId);
    for (const change of state.deviceListChanges) if (change.position > from && mates.has(change.userId)) changedUsers.add(change.userId);
  }

  const toDevice = device.inbox.map((m) => m.event);
  const body = {
    next_batch: `s${state.position}`,
    rooms: { join, invite, leave },
    to_device: { events: toDevice },
    device_lists: { changed: [...changedUsers], left: [] },
    device_one_time_keys_count: oneTimeKeyCounts(device),
    device_unused_fallback_key_types: [...device.fallbackKeys.keys()].map((id) => id.split(":")[0]),
    account_data: { events: [] },
    presence: { events: [] },
  };
  const hasContent = Object.keys(join).length + Object.keys(invite).length + Object.keys(leave).length + toDevice.length + changedUsers.size > 0;
  return { body, hasContent };
}

export function oneTimeKeyCounts(device: Device): Record<string, number> {
  const counts: Record<string, number> = { signed_curve25519: 0 };
  for (const id of device.oneTimeKeys.keys()) {
    const algorithm = id.split(":")[0];
    counts[algorithm] = (counts[algorithm] ?? 0) + 1;
  }
  return counts;
}

/** A room section: everything after `since`, or (undefined) the recent timeline plus current state. */
function joinedRoom(state: HomeserverState, room: Room, device: Device, since: number | undefined): Record<string, any> | undefined {
  let timeline: StoredEvent[];
  let stateEvents: ClientEvent[] = [];
  let limited = false;
  if (since === undefined) {
    timeline = room.timeline.slice(-TIMELINE_LIMIT);
    limited = timeline.length < room.timeline.length;
    const shown = new Set(timeline.map((e) => e.event.event_id));
    stateEvents = [...room.state.values()].filter((s) => !shown.has(s.event.event_id)).map((s) => clientEvent(s, device));
  } else {
    timeline = room.timeline.filter((e) => e.position > since);
  }
  const typingChanged = since === undefined || room.typingPosition > since;
  if (since !== undefined && timeline.length === 0 && !typingChanged) return undefined;
  const heroes = state.members(room).slice(0, 5);
  return {
    timeline: { events: timeline.map((e) => clientEvent(e, device)), limited, prev_batch: `s${(timeline[0]?.position ?? state.position) - 1}` },
    state: { events: stateEvents },
    ephemeral: { events: typingChanged ? [{ type: "m.typing", content: { user_ids: state.typingUsers(room) } }] : [] },
    account_data: { events: [] },
    summary: { "m.heroes": heroes, "m.joined_member_count": state.members(room).length, "m.invited_member_count": state.members(room, "invite").length },
    unread_notifications: { notification_count: 0, highlight_count: 0 },
  };
}

/** Users whose devices this user must now track: they joined a shared room, or this user just joined theirs. */
function newlyJoinedMates(state: HomeserverState, room: Room, userId: string, from: number, membershipAt: number): string[] {
  if (membershipAt > from) return state.members(room).filter((m) => m !== userId);
  return state.members(room).filter((m) => m !== userId && state.membershipPosition(room, m) > from);
}

function strippedState(state: HomeserverState, room: Room, userId: string): Array<Record<string, any>> {
  const events = STRIPPED_STATE_TYPES.map((type) => state.stateEvent(room, type)).filter((e): e is ClientEvent => e !== undefined);
  const invite = state.stateEvent(room, "m.room.member", userId);
  const inviter = invite && state.stateEvent(room, "m.room.member", invite.sender);
  return [...events, ...(inviter ? [inviter] : []), ...(invite ? [invite] : [])].map((e) => ({ type: e.type, state_key: e.state_key, content: e.content, sender: e.sender }));
}

/** The event as this device sees it: its own sends carry the transaction id, every event its age. */
export function clientEvent(stored: StoredEvent, device?: Device): ClientEvent {
  const unsigned: Record<string, any> = { ...stored.event.unsigned, age: Date.now() - stored.event.origin_server_ts };
  if (device && stored.txn?.token === device.accessToken) unsigned.transaction_id = stored.txn.id;
  return { ...stored.event, unsigned };
}

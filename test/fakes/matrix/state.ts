// The homeserver's memory for the Matrix fake: accounts and devices, rooms with their state and
// timeline, one global stream ordering (sync tokens are `s<position>`), queued to-device messages,
// device-list changes, typing and media. Plain data plus the few rules a real server applies
// (membership transitions, transaction-id dedupe, redaction stripping); the HTTP layer is server.ts.
import { randomBytes } from "node:crypto";

export const SERVER_NAME = "fake.test";

export interface ClientEvent {
  event_id: string;
  type: string;
  sender: string;
  room_id: string;
  content: Record<string, any>;
  origin_server_ts: number;
  state_key?: string;
  redacts?: string;
  unsigned?: Record<string, any>;
}

export interface StoredEvent {
  event: ClientEvent;
  position: number;
  /** Which access token sent it, so its own sync carries `unsigned.transaction_id`. */
  txn?: { token: string; id: string };
}

export interface Device {
  deviceId: string;
  accessToken: string;
  displayName?: string;
  keys?: Record<string, any>;
  oneTimeKeys: Map<string, Record<string, any>>;
  fallbackKeys: Map<string, Record<string, any>>;
  /** To-device messages waiting for this device, each with its stream position. */
  inbox: Array<{ position: number; event: Record<string, any> }>;
}

export interface Account {
  userId: string;
  password: string;
  displayName: string;
  devices: Map<string, Device>;
  crossSigning: Record<string, any>;
  accountData: Map<string, Record<string, any>>;
}

export interface Room {
  roomId: string;
  timeline: StoredEvent[];
  /** Current state: `${type}\u0000${stateKey}` → event. */
  state: Map<string, StoredEvent>;
  typing: Map<string, number>;
  typingPosition: number;
}

export interface Media {
  content: Buffer;
  contentType: string;
  fileName?: string;
}

export class HomeserverState {
  position = 1;
  readonly accounts = new Map<string, Account>();
  readonly rooms = new Map<string, Room>();
  readonly tokens = new Map<string, { account: Account; device: Device }>();
  /** Device-list changes: a user whose keys changed at a position. */
  readonly deviceListChanges: Array<{ position: number; userId: string }> = [];
  readonly media = new Map<string, Media>();
  readonly filters = new Map<string, unknown>();
  private readonly sentTxns = new Map<string, string>();
  private eventCounter = 0;
  /** Called after anything a sync could report; wakes held long-polls. */
  onChange: () => void = () => undefined;

  bump(): number {
    this.position += 1;
    queueMicrotask(() => this.onChange());
    return this.position;
  }

  addAccount(localpart: string, password: string, displayName = localpart): Account {
    const userId = `@${localpart}:${SERVER_NAME}`;
    const account: Account = { userId, password, displayName, devices: new Map(), crossSigning: {}, accountData: new Map() };
    this.accounts.set(userId, account);
    return account;
  }

  addDevice(account: Account, deviceId = randomId(10).toUpperCase(), displayName?: string): Device {
    const existing = account.devices.get(deviceId);
    if (existing) this.tokens.delete(existing.accessToken);
    const device: Device = {
      deviceId,
      accessToken: `syt_${randomId(24)}`,
      displayName,
      oneTimeKeys: new Map(),
      fallbackKeys: new Map(),
      inbox: existing?.inbox ?? [],
      keys: existing?.keys,
    };
    account.devices.set(deviceId, device);
    this.tokens.set(device.accessToken, { account, device });
    return device;
  }

  createRoom(_creator: string): Room {
    const room: Room = { roomId: `!${randomId(18)}:${SERVER_NAME}`, timeline: [], state: new Map(), typing: new Map(), typingPosition: 0 };
    this.rooms.set(room.roomId, room);
    return room;
  }

  /** Appends an event to a room's timeline (and its state when it has a state_key). */
  appendEvent(room: Room, partial: Omit<ClientEvent, "event_id" | "origin_server_ts" | "room_id">, txn?: StoredEvent["txn"]): StoredEvent {
    if (txn) {
      const already = this.sentTxns.get(`${txn.token}\u0000${room.roomId}\u0000${txn.id}`);
      const found = already && room.timeline.find((e) => e.event.event_id === already);
      if (found) return found;
    }
    this.eventCounter += 1;
    const event: ClientEvent = { ...partial, room_id: room.roomId, event_id: `$${this.eventCounter}_${randomId(8)}`, origin_server_ts: Date.now() };
    const stored: StoredEvent = { event, position: this.bump(), txn };
    room.timeline.push(stored);
    if (event.state_key !== undefined) room.state.set(`${event.type}\u0000${event.state_key}`, stored);
    if (txn) this.sentTxns.set(`${txn.token}\u0000${room.roomId}\u0000${txn.id}`, event.event_id);
    return stored;
  }

  stateEvent(room: Room, type: string, stateKey = ""): ClientEvent | undefined {
    return room.state.get(`${type}\u0000${stateKey}`)?.event;
  }

  membership(room: Room, userId: string): string | undefined {
    return this.stateEvent(room, "m.room.member", userId)?.content.membership;
  }

  /** Position at which `userId`'s current membership in the room was set. */
  membershipPosition(room: Room, userId: string): number {
    return room.state.get(`m.room.member\u0000${userId}`)?.position ?? 0;
  }

  members(room: Room, membership = "join"): string[] {
    return [...room.state.values()].filter((s) => s.event.type === "m.room.member" && s.event.content.membership === membership).map((s) => s.event.state_key!);
  }

  /** Users sharing a joined room with `userId` (itself included). */
  roomMatesOf(userId: string): Set<string> {
    const mates = new Set([userId]);
    for (const room of this.rooms.values()) {
      if (this.membership(room, userId) !== "join") continue;
      for (const member of this.members(room)) mates.add(member);
    }
    return mates;
  }

  findEvent(room: Room, eventId: string): StoredEvent | undefined {
    return room.timeline.find((e) => e.event.event_id === eventId);
  }

  /** A real server strips a redacted event's content down to the keys the spec preserves. */
  redact(_room: Room, target: StoredEvent, redaction: ClientEvent): void {
    const keep = target.event.type === "m.room.member" ? ["membership"] : [];
    target.event.content = Object.fromEntries(Object.entries(target.event.content).filter(([key]) => keep.includes(key)));
    target.event.unsigned = { ...target.event.unsigned, redacted_because: redaction };
  }

  deviceListChanged(userId: string): void {
    this.deviceListChanges.push({ position: this.bump(), userId });
  }

  setTyping(room: Room, userId: string, typing: boolean, timeoutMs: number): void {
    if (typing) room.typing.set(userId, Date.now() + timeoutMs);
    else room.typing.delete(userId);
    room.typingPosition = this.bump();
  }

  typingUsers(room: Room): string[] {
    const now = Date.now();
    return [...room.typing.entries()].filter(([, until]) => until > now).map(([user]) => user);
  }
}

export function randomId(length: number): string {
  return randomBytes(length).toString("base64url").replace(/[-_]/g, "x").slice(0, length);
}

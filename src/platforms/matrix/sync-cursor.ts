// The sync position across instances (store.url). The leader keeps the `next_batch` of its last
// /sync whose events it handed over in the shared cursors. The instance that takes over does its
// own first sync (the room state the SDK needs), then asks the homeserver once for what came since
// the stored position: those events are handled first, before anything the live sync brought
// meanwhile (the core drops an event both delivered), so none is missed and none older repeated.
// A position is stored only after the crypto store's changes up to it (the room keys its sync
// brought): the next leader never reads on past a message it has no key for.
import { setImmediate as afterPendingWork } from "node:timers/promises";
import type { MatrixClient, MatrixEvent, Room } from "matrix-js-sdk";
import type { PlatformCursors } from "../contract.js";

/** Per room: the most recent events the catch-up takes (a longer outage loses the older ones, with a warning). */
const CATCH_UP_EVENTS_PER_ROOM = 100;
/** What the catch-up asks for: room messages and reactions, no state, presence or receipts. */
const CATCH_UP_FILTER = {
  room: {
    timeline: { limit: CATCH_UP_EVENTS_PER_ROOM, types: ["m.room.message", "m.room.encrypted", "m.reaction"] },
    state: { lazy_load_members: true, types: [] },
    ephemeral: { not_types: ["*"] },
    account_data: { not_types: ["*"] },
  },
  presence: { not_types: ["*"] },
  account_data: { not_types: ["*"] },
};

type Sdk = typeof import("matrix-js-sdk");

export interface CaughtUp {
  events: Array<{ event: MatrixEvent; room: Room }>;
  /** Rooms where more came than the catch-up takes: their older events are not handled. */
  truncatedRooms: string[];
}

interface SyncSection {
  rooms?: { join?: Record<string, { timeline?: { events?: Array<Record<string, unknown>>; limited?: boolean } }> };
}

export class SyncTokenCursor {
  private latest?: string;
  private saving = false;
  private detach?: () => void;

  constructor(
    private readonly cursors: PlatformCursors,
    private readonly key: string,
    /** Resolves once what the syncs so far changed in the crypto store is stored as well. */
    private readonly settled: () => Promise<void> = () => Promise.resolve(),
  ) {}

  load(): Promise<string | undefined> {
    return this.cursors.get(this.key);
  }

  /** Notes each completed sync's position (its events emitted by then); saved once saving is on. */
  follow(client: MatrixClient, sdk: Sdk, firstSyncToken: string | undefined): void {
    this.latest = firstSyncToken;
    const onSync = (_state: string, _previous: unknown, data?: { nextSyncToken?: string }) => {
      if (!data?.nextSyncToken) return;
      this.latest = data.nextSyncToken;
      if (this.saving) void afterPendingWork().then(() => this.save());
    };
    client.on(sdk.ClientEvent.Sync, onSync);
    this.detach = () => client.off(sdk.ClientEvent.Sync, onSync);
  }

  /** Saves from now on (after the events since the stored position were handed over). */
  startSaving(): void {
    this.saving = true;
    this.save();
  }

  stop(): void {
    this.detach?.();
    this.detach = undefined;
  }

  private save(): void {
    const position = this.latest;
    if (position) void this.settled().then(() => this.cursors.set(this.key, position));
  }
}

/** The room events that came since `since`, in order per room, as the SDK's events (decrypted where it can). */
export async function eventsSince(client: MatrixClient, sdk: Sdk, since: string): Promise<CaughtUp> {
  const response = await client.http.authedRequest<SyncSection>(sdk.Method.Get, "/sync", { since, timeout: "0", filter: JSON.stringify(CATCH_UP_FILTER) });
  const toEvent = client.getEventMapper();
  const events: CaughtUp["events"] = [];
  const truncatedRooms: string[] = [];
  for (const [roomId, section] of Object.entries(response.rooms?.join ?? {})) {
    const room = client.getRoom(roomId);
    if (!room) continue;
    if (section.timeline?.limited) truncatedRooms.push(roomId);
    for (const raw of section.timeline?.events ?? []) events.push({ event: toEvent({ ...raw, room_id: roomId }), room });
  }
  return { events, truncatedRooms };
}

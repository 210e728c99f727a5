// A real matrix-js-sdk client with Rust crypto playing a human user against the fake homeserver,
// the way Element would: it syncs, creates encrypted DMs, sends and decrypts messages.
import * as sdk from "matrix-js-sdk";
import type { FakeHomeserver } from "../../fakes/matrix/server.js";
import { quietRustCryptoTracing, routeMatrixSdkLogs } from "../../../src/platforms/matrix/sdk-log.js";

export interface SdkUser {
  client: sdk.MatrixClient;
  userId: string;
  deviceId: string;
  stop(): Promise<void>;
}

const quiet: sdk.Logger = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: (...args: unknown[]) => console.error("[sdk user]", ...args),
  getChild: () => quiet,
};

/** Logs a fresh device in for `localpart` (registered on the fake) and starts syncing with in-memory crypto. */
export async function startSdkUser(fake: FakeHomeserver, userId: string): Promise<SdkUser> {
  routeMatrixSdkLogs({ debug: () => undefined });
  await quietRustCryptoTracing();
  const { accessToken, deviceId } = fake.login(userId);
  const client = sdk.createClient({ baseUrl: fake.baseUrl, userId, deviceId, accessToken, logger: quiet });
  await client.initRustCrypto({ useIndexedDB: false });
  const prepared = new Promise<void>((resolve) => {
    const onSync = (state: string) => {
      if (state !== "PREPARED") return;
      client.off(sdk.ClientEvent.Sync, onSync);
      resolve();
    };
    client.on(sdk.ClientEvent.Sync, onSync);
  });
  await client.startClient({ initialSyncLimit: 20 });
  await prepared;
  return {
    client,
    userId,
    deviceId,
    stop: async () => {
      client.stopClient();
    },
  };
}

/** Creates an encrypted DM (as Element does: trusted_private_chat, is_direct, m.room.encryption). */
export async function createEncryptedDm(user: SdkUser, other: string): Promise<string> {
  const { room_id } = await user.client.createRoom({
    preset: sdk.Preset.TrustedPrivateChat,
    is_direct: true,
    invite: [other],
    initial_state: [{ type: "m.room.encryption", state_key: "", content: { algorithm: "m.megolm.v1.aes-sha2" } }],
  });
  return room_id;
}

/** Resolves with the first decrypted (or clear) room message in `roomId` from someone else matching `predicate`. */
export function nextMessage(user: SdkUser, roomId: string, predicate: (content: Record<string, any>) => boolean = () => true, timeoutMs = 20_000): Promise<sdk.MatrixEvent> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`no matching message in ${roomId} for ${user.userId} within ${timeoutMs} ms`));
    }, timeoutMs);
    const check = (event: sdk.MatrixEvent) => {
      if (event.getRoomId() !== roomId || event.getSender() === user.userId) return;
      if (event.isBeingDecrypted() || event.getType() !== "m.room.message") return;
      if (!predicate(event.getContent())) return;
      cleanup();
      resolve(event);
    };
    const onTimeline = (event: sdk.MatrixEvent) => check(event);
    const onDecrypted = (event: sdk.MatrixEvent) => check(event);
    const cleanup = () => {
      clearTimeout(timer);
      user.client.off(sdk.RoomEvent.Timeline, onTimeline);
      user.client.off(sdk.MatrixEventEvent.Decrypted, onDecrypted);
    };
    user.client.on(sdk.RoomEvent.Timeline, onTimeline);
    user.client.on(sdk.MatrixEventEvent.Decrypted, onDecrypted);
  });
}

/** Waits until `userId` is joined to `roomId` as this client sees it. */
export async function waitForMember(user: SdkUser, roomId: string, userId: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (user.client.getRoom(roomId)?.getMember(userId)?.membership !== "join") {
    if (Date.now() > deadline) throw new Error(`${userId} did not join ${roomId}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

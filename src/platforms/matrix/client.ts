// The Matrix connection: one matrix-js-sdk client with Rust crypto, logged in as the bot's device,
// its crypto store persisted in the data dir, syncing. The adapter translates its events; this only
// connects, disconnects and knows the credentials. With shared snapshots (store.url) the login and
// the crypto store are kept there too, for the instance that takes the lead next.
import { toPlatformError } from "./errors.js";
import type { MatrixClient } from "matrix-js-sdk";
import { PlatformError } from "../../kernel/errors.js";
import type { MatrixAdapterConfig } from "./config.js";
import type { PlatformSnapshots } from "../contract.js";
import { loginWithPassword, resolveSession, resolveSharedSession, type MatrixSession } from "./session.js";
import { cryptoStoreKey, cryptoStoreMirror, openCryptoStore, withIndexedDb } from "./crypto-store.js";
import type { PersistentIndexedDb } from "./persistent-idb.js";
import { matrixSdkLogger, quietRustCryptoTracing, routeMatrixSdkLogs, type LogSink } from "./sdk-log.js";

/** The first sync of a large account can be slow; past this, start fails with a clear error. */
const FIRST_SYNC_TIMEOUT_MS = 120_000;
/** A homeserver call without an answer by then is a network failure (the long-poll /sync sets its own). */
const REQUEST_TIMEOUT_MS = 30_000;

export interface MatrixConnectionOptions {
  instance: string;
  dataDir: string;
  snapshots?: PlatformSnapshots;
}

export type ConnectionLog = LogSink & { info(message: string): void; warn(message: string): void };

export class MatrixConnection {
  client!: MatrixClient;
  session!: MatrixSession;
  /** The first sync's `next_batch`: its events were emitted before start() resolved. */
  firstSyncToken?: string;
  private store?: PersistentIndexedDb;

  constructor(
    readonly config: MatrixAdapterConfig,
    private readonly options: MatrixConnectionOptions,
  ) {}

  async start(log: ConnectionLog): Promise<void> {
    const { options } = this;
    this.session = await this.resolveSession();
    const sdk = await import("matrix-js-sdk");
    routeMatrixSdkLogs(log);
    await quietRustCryptoTracing();
    this.client = sdk.createClient({
      baseUrl: this.session.homeserver,
      userId: this.session.user_id,
      deviceId: this.session.device_id,
      accessToken: this.session.access_token,
      logger: matrixSdkLogger(),
      localTimeoutMs: REQUEST_TIMEOUT_MS,
      // One call per send: no retries and no queue inside the SDK. The core orders, paces and retries
      // (the SDK's default scheduler would wait out a 429 itself, and its shared message queue fails
      // every queued message of every room when one of them is given up).
      scheduler: new sdk.MatrixScheduler(
        () => -1,
        () => null,
      ),
    });
    const mirror = options.snapshots && cryptoStoreMirror(options.snapshots, this.cryptoKey());
    this.store = await openCryptoStore(options.dataDir, options.instance, this.session.device_id, (m) => log.warn(m), mirror);
    try {
      await withIndexedDb(this.store.factory, () => this.client.initRustCrypto());
    } catch (error) {
      throw new PlatformError(`Matrix end-to-end encryption could not start for device ${this.session.device_id}: ${(error as Error).message}`, { reason: "refused", cause: error });
    }
    await this.firstSync(sdk);
  }

  /** The shared login (store.url), else the data dir's or the configured one, else a password login. */
  private resolveSession(): Promise<MatrixSession> {
    const { config, options } = this;
    if (options.snapshots) return resolveSharedSession(options.snapshots, config, options.dataDir, options.instance);
    return resolveSession(config, options.dataDir, options.instance).then((session) => session ?? loginWithPassword(config, options.dataDir, options.instance));
  }

  private cryptoKey(): string {
    return cryptoStoreKey(this.options.instance, this.session);
  }

  /** Resolves once the crypto store's changes so far are in the shared snapshots (at once without them). */
  cryptoSaved(): Promise<void> {
    return this.options.snapshots && this.session ? this.options.snapshots.flushed(this.cryptoKey()) : Promise.resolve();
  }

  private async firstSync(sdk: typeof import("matrix-js-sdk")): Promise<void> {
    const client = this.client;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => finish(new Error(`no first sync within ${FIRST_SYNC_TIMEOUT_MS / 1000} s`)), FIRST_SYNC_TIMEOUT_MS);
      const onSync = (state: string, _previous: unknown, data?: { error?: Error; nextSyncToken?: string }) => {
        if (state === "PREPARED") {
          this.firstSyncToken = data?.nextSyncToken;
          finish();
        } else if (state === "ERROR") finish(data?.error ?? new Error("sync failed"));
      };
      const finish = (error?: Error) => {
        clearTimeout(timer);
        client.off(sdk.ClientEvent.Sync, onSync);
        // A homeserver that answered no (401 M_UNKNOWN_TOKEN: the login was revoked) is a refusal;
        // no answer, a timeout or 5xx is the network, retried.
        if (!error) return resolve();
        const refused = toPlatformError(error, "sync").reason === "refused";
        reject(new PlatformError(`Matrix: the first sync with ${this.session.homeserver} failed: ${error.message}`, { reason: refused ? "refused" : "network", cause: error }));
      };
      client.on(sdk.ClientEvent.Sync, onSync);
      void client.startClient({ initialSyncLimit: 1 }).catch(finish);
    });
  }

  /** Stops syncing and writes the crypto store's snapshot. */
  async stop(): Promise<void> {
    this.client?.stopClient();
    await this.store?.close();
    this.store = undefined;
  }

  /** The device's identity key, to compare across restarts and to verify from another client. */
  async deviceKeys(): Promise<{ ed25519: string; curve25519: string }> {
    const keys = await this.client.getCrypto()!.getOwnDeviceKeys();
    return { ed25519: keys.ed25519, curve25519: keys.curve25519 };
  }
}

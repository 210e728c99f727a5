// Where the Rust crypto keeps its keys: a persistent IndexedDB (persistent-idb.ts) per account
// device in the data dir, `matrix/<instance>/crypto-<device id>/`. A new device (a fresh login)
// gets a fresh store; the old one is left for the operator to delete.
//
// The Rust crypto opens its database through the global `indexedDB`, which Node does not have:
// the IndexedDB classes are installed as globals once, and `indexedDB` points at this instance's
// factory only while the crypto opens its store (one instance at a time), so two Matrix accounts
// in one Baton keep apart stores.
//
// With store.url the store is mirrored in the shared snapshots, one key per account device, so the
// instance that takes the lead on another machine opens the same keys (see persistent-idb.ts).
import { join } from "node:path";
import * as fakeIndexedDb from "fake-indexeddb";
import { matrixInstanceDir } from "./session.js";
import type { PlatformSnapshots } from "../contract.js";
import { openPersistentIndexedDb, type PersistentIndexedDb, type StoreMirror } from "./persistent-idb.js";

const IDB_GLOBALS = [
  "IDBCursor",
  "IDBCursorWithValue",
  "IDBDatabase",
  "IDBFactory",
  "IDBIndex",
  "IDBKeyRange",
  "IDBObjectStore",
  "IDBOpenDBRequest",
  "IDBRequest",
  "IDBTransaction",
  "IDBVersionChangeEvent",
] as const;
let opening: Promise<unknown> = Promise.resolve();

export function cryptoStoreDir(dataDir: string, instance: string, deviceId: string): string {
  return join(matrixInstanceDir(dataDir, instance), `crypto-${deviceId.replace(/[^A-Za-z0-9_-]/g, "_")}`);
}

export function openCryptoStore(dataDir: string, instance: string, deviceId: string, warn: (message: string) => void, mirror?: StoreMirror): Promise<PersistentIndexedDb> {
  return openPersistentIndexedDb(cryptoStoreDir(dataDir, instance, deviceId), warn, mirror);
}

/** Where the crypto store of an account device is kept in the shared snapshots. */
export function cryptoStoreKey(instance: string, session: { user_id: string; device_id: string }): string {
  return `matrix:${instance}:${session.user_id}:crypto:${session.device_id}`;
}

/** The crypto store's copy under `key` in the shared snapshots. */
export function cryptoStoreMirror(snapshots: PlatformSnapshots, key: string): StoreMirror {
  return {
    load: () => snapshots.load(key),
    append: (generation, record) => snapshots.append(key, generation, record),
    replace: (generation, snapshot) => snapshots.replace(key, generation, snapshot),
    flushed: () => snapshots.flushed(key),
  };
}

/** Runs `open` (initRustCrypto) with the global `indexedDB` set to `factory`; one at a time. */
export function withIndexedDb<T>(factory: IDBFactory, open: () => Promise<T>): Promise<T> {
  const run = opening.then(async () => {
    const globals = globalThis as Record<string, unknown>;
    for (const name of IDB_GLOBALS) globals[name] ??= (fakeIndexedDb as Record<string, unknown>)[name];
    const previous = globals.indexedDB;
    globals.indexedDB = factory;
    try {
      return await open();
    } finally {
      globals.indexedDB = previous;
    }
  });
  opening = run.catch(() => undefined);
  return run;
}

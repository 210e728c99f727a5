// Reading a whole IndexedDB factory into plain data and writing it back, through the public
// IndexedDB API only: the snapshot and journal replay of persistent-idb.ts.
import { IDBKeyRange } from "fake-indexeddb";

type KeyPath = string | string[] | null;

export type Op =
  | { op: "put"; store: string; key?: IDBValidKey; value: unknown; inline: boolean; failed?: boolean }
  | { op: "delete"; store: string; range: { only: IDBValidKey } | { lower?: IDBValidKey; upper?: IDBValidKey; lowerOpen: boolean; upperOpen: boolean }; failed?: boolean }
  | { op: "clear"; store: string; failed?: boolean }
  | { op: "createStore"; store: string; keyPath: KeyPath; autoIncrement: boolean; failed?: boolean }
  | { op: "deleteStore"; store: string; failed?: boolean }
  | { op: "createIndex"; store: string; index: string; keyPath: string | string[]; unique: boolean; multiEntry: boolean; failed?: boolean }
  | { op: "deleteIndex"; store: string; index: string; failed?: boolean };

/** One committed transaction: its database, the new version for an upgrade, its operations in order. */
export interface TxRecord {
  db: string;
  version?: number;
  deleted?: boolean;
  ops: Op[];
}

interface StoreDump {
  name: string;
  keyPath: KeyPath;
  autoIncrement: boolean;
  indexes: Array<{ name: string; keyPath: string | string[]; unique: boolean; multiEntry: boolean }>;
  keys: IDBValidKey[];
  values: unknown[];
}

export interface DatabaseDump {
  name: string;
  version: number;
  stores: StoreDump[];
}

export async function dumpDatabases(factory: IDBFactory): Promise<DatabaseDump[]> {
  const dumps: DatabaseDump[] = [];
  for (const info of await factory.databases()) {
    if (!info.name) continue;
    const db = await openDb(factory, info.name);
    try {
      const names = [...db.objectStoreNames];
      const stores: StoreDump[] = [];
      if (names.length > 0) {
        const transaction = db.transaction(names, "readonly");
        for (const name of names) {
          const store = transaction.objectStore(name);
          const indexes = [...store.indexNames].map((indexName) => {
            const index = store.index(indexName);
            return { name: indexName, keyPath: index.keyPath, unique: index.unique, multiEntry: index.multiEntry };
          });
          const [keys, values] = await Promise.all([requestResult(store.getAllKeys()), requestResult(store.getAll())]);
          stores.push({ name, keyPath: store.keyPath as KeyPath, autoIncrement: store.autoIncrement, indexes, keys, values });
        }
      }
      dumps.push({ name: db.name, version: db.version, stores });
    } finally {
      db.close();
    }
  }
  return dumps;
}

export async function restoreDatabases(factory: IDBFactory, dumps: DatabaseDump[]): Promise<void> {
  for (const dump of dumps) {
    const db = await openDb(factory, dump.name, dump.version, (upgrade) => {
      for (const store of dump.stores) {
        const created = upgrade.createObjectStore(store.name, { keyPath: store.keyPath, autoIncrement: store.autoIncrement });
        for (const index of store.indexes) created.createIndex(index.name, index.keyPath, { unique: index.unique, multiEntry: index.multiEntry });
      }
    });
    try {
      if (dump.stores.length === 0) continue;
      const transaction = db.transaction(
        dump.stores.map((s) => s.name),
        "readwrite",
      );
      for (const store of dump.stores) {
        const target = transaction.objectStore(store.name);
        store.values.forEach((value, i) => {
          if (store.keyPath === null) target.put(value, store.keys[i]);
          else target.put(value);
        });
      }
      await transactionDone(transaction);
    } finally {
      db.close();
    }
  }
}

/** Applies one journal record; an upgrade record opens the database at its version and applies everything inside the upgrade. */
export async function applyOps(factory: IDBFactory, record: TxRecord): Promise<void> {
  if (record.deleted) {
    await requestResult(factory.deleteDatabase(record.db));
    return;
  }
  if (record.version !== undefined) {
    const db = await openDb(factory, record.db, record.version, (upgradeDb, transaction) => applyInTransaction(record.ops, transaction, upgradeDb));
    db.close();
    return;
  }
  const stores = [...new Set(record.ops.map((op) => op.store))];
  if (stores.length === 0) return;
  const db = await openDb(factory, record.db);
  try {
    const transaction = db.transaction(stores, "readwrite");
    applyInTransaction(record.ops, transaction);
    await transactionDone(transaction);
  } finally {
    db.close();
  }
}

function applyInTransaction(ops: Op[], transaction: IDBTransaction, upgradeDb?: IDBDatabase): void {
  for (const op of ops) {
    switch (op.op) {
      case "createStore":
        // Replays may meet a store the snapshot already has.
        if (!upgradeDb!.objectStoreNames.contains(op.store)) upgradeDb!.createObjectStore(op.store, { keyPath: op.keyPath, autoIncrement: op.autoIncrement });
        break;
      case "deleteStore":
        if (upgradeDb!.objectStoreNames.contains(op.store)) upgradeDb!.deleteObjectStore(op.store);
        break;
      case "createIndex": {
        const store = transaction.objectStore(op.store);
        if (!store.indexNames.contains(op.index)) store.createIndex(op.index, op.keyPath, { unique: op.unique, multiEntry: op.multiEntry });
        break;
      }
      case "deleteIndex": {
        const store = transaction.objectStore(op.store);
        if (store.indexNames.contains(op.index)) store.deleteIndex(op.index);
        break;
      }
      case "put":
        if (op.inline) transaction.objectStore(op.store).put(op.value);
        else transaction.objectStore(op.store).put(op.value, op.key);
        break;
      case "delete":
        transaction.objectStore(op.store).delete("only" in op.range ? op.range.only : keyRange(op.range));
        break;
      case "clear":
        transaction.objectStore(op.store).clear();
        break;
    }
  }
}

function keyRange(range: { lower?: IDBValidKey; upper?: IDBValidKey; lowerOpen: boolean; upperOpen: boolean }): IDBKeyRange {
  if (range.lower !== undefined && range.upper !== undefined) return IDBKeyRange.bound(range.lower, range.upper, range.lowerOpen, range.upperOpen);
  if (range.lower !== undefined) return IDBKeyRange.lowerBound(range.lower, range.lowerOpen);
  return IDBKeyRange.upperBound(range.upper, range.upperOpen);
}

function openDb(factory: IDBFactory, name: string, version?: number, upgrade?: (db: IDBDatabase, transaction: IDBTransaction) => void): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = version === undefined ? factory.open(name) : factory.open(name, version);
    request.onupgradeneeded = () => upgrade?.(request.result, request.transaction!);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
    request.onblocked = () => reject(new Error(`IndexedDB ${name} is held open elsewhere`));
  });
}

function requestResult<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function transactionDone(transaction: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    transaction.oncomplete = () => resolve();
    transaction.onerror = () => reject(transaction.error);
    transaction.onabort = () => reject(transaction.error ?? new Error("transaction aborted"));
  });
}

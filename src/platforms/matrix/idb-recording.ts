// Recording the writes to a fake-indexeddb factory (persistent-idb.ts): which operations each
// read-write transaction made, in which database of which journal, so that a committed transaction
// reaches the journal as one record before its own `complete` handlers run. fake-indexeddb has no
// hook for this, so the IDBDatabase, IDBObjectStore and IDBCursor methods that write are wrapped
// (once per process); a factory's databases are tied to its journal when they open.
import { IDBCursor, IDBDatabase, type IDBFactory, IDBKeyRange, IDBObjectStore } from "fake-indexeddb";
import type { Op, TxRecord } from "./idb-dump.js";

/** Where the recorded writes go. */
export interface WriteJournal {
  /** A database deleted. */
  append(record: TxRecord): void;
  /** A read-write transaction committed, with the operations that did not fail. */
  committed(record: TxRecord): void;
}

const journals = new WeakMap<object, WriteJournal>();
const recorders = new WeakMap<object, TxRecord>();
const upgrades = new WeakMap<object, TxRecord>();

function startRecording(transaction: IDBTransaction, journal: WriteJournal, record: TxRecord): void {
  recorders.set(transaction, record);
  // Listeners added here run before the transaction's `oncomplete`, which the crypto code awaits.
  transaction.addEventListener("complete", () => {
    journal.committed({ ...record, ops: record.ops.filter((op) => !op.failed) });
  });
}

/** Records every write made through `factory` into `journal`. */
export function instrument(factory: IDBFactory, journal: WriteJournal): void {
  patchPrototypes();
  const open = factory.open.bind(factory);
  factory.open = (name: string, version?: number) => {
    const request = open(name, version);
    request.addEventListener("upgradeneeded", (event) => {
      const db = request.result;
      journals.set(db, journal);
      const record: TxRecord = { db: name, version: (event as IDBVersionChangeEvent).newVersion ?? undefined, ops: [] };
      upgrades.set(db, record);
      startRecording(request.transaction!, journal, record);
      request.transaction!.addEventListener("complete", () => upgrades.delete(db));
      request.transaction!.addEventListener("abort", () => upgrades.delete(db));
    });
    request.addEventListener("success", () => journals.set(request.result, journal));
    return request;
  };
  const deleteDatabase = factory.deleteDatabase.bind(factory);
  factory.deleteDatabase = (name: string) => {
    const request = deleteDatabase(name);
    request.addEventListener("success", () => journal.append({ db: name, deleted: true, ops: [] }));
    return request;
  };
}

let patched = false;
function patchPrototypes(): void {
  if (patched) return;
  patched = true;
  const dbProto = IDBDatabase.prototype as any;
  const storeProto = IDBObjectStore.prototype as any;
  const cursorProto = IDBCursor.prototype as any;

  wrap(dbProto, "transaction", function (this: IDBDatabase, transaction: IDBTransaction) {
    const journal = journals.get(this);
    if (journal && transaction.mode === "readwrite") startRecording(transaction, journal, { db: this.name, ops: [] });
  });
  const schema = (method: string, op: (args: any[]) => Op) =>
    wrap(dbProto, method, function (this: IDBDatabase, _result, args) {
      upgrades.get(this)?.ops.push(op(args));
    });
  schema("createObjectStore", ([store, options]) => ({ op: "createStore", store, keyPath: options?.keyPath ?? null, autoIncrement: !!options?.autoIncrement }));
  schema("deleteObjectStore", ([store]) => ({ op: "deleteStore", store }));
  wrap(storeProto, "createIndex", function (this: IDBObjectStore, _r, [index, keyPath, options]) {
    recorders.get(this.transaction)?.ops.push({ op: "createIndex", store: this.name, index, keyPath, unique: !!options?.unique, multiEntry: !!options?.multiEntry });
  });
  wrap(storeProto, "deleteIndex", function (this: IDBObjectStore, _r, [index]) {
    recorders.get(this.transaction)?.ops.push({ op: "deleteIndex", store: this.name, index });
  });
  for (const method of ["put", "add"]) {
    wrap(storeProto, method, function (this: IDBObjectStore, request: IDBRequest, [value, key]) {
      recordWrite(this.transaction, request, { op: "put", store: this.name, key, value: structuredClone(value), inline: this.keyPath !== null });
    });
  }
  wrap(storeProto, "delete", function (this: IDBObjectStore, request: IDBRequest, [query]) {
    recordWrite(this.transaction, request, { op: "delete", store: this.name, range: toRange(query) });
  });
  wrap(storeProto, "clear", function (this: IDBObjectStore, request: IDBRequest) {
    recordWrite(this.transaction, request, { op: "clear", store: this.name });
  });
  wrap(cursorProto, "update", function (this: IDBCursor, request: IDBRequest, [value]) {
    const store = storeOf(this);
    recordWrite(this.request.transaction!, request, { op: "put", store: store.name, key: this.primaryKey, value: structuredClone(value), inline: store.keyPath !== null });
  });
  wrap(cursorProto, "delete", function (this: IDBCursor, request: IDBRequest) {
    recordWrite(this.request.transaction!, request, { op: "delete", store: storeOf(this).name, range: { only: this.primaryKey } });
  });
}

/** Replaces `proto[method]` by a call to the original followed by `after` (only when it did not throw). */
function wrap(proto: any, method: string, after: (this: any, result: any, args: any[]) => void): void {
  const original = proto[method] as (...args: any[]) => any;
  proto[method] = function (this: unknown, ...args: any[]) {
    const result = original.apply(this, args);
    after.call(this, result, args);
    return result;
  };
}

function recordWrite(transaction: IDBTransaction, request: IDBRequest, op: Op): void {
  const record = recorders.get(transaction);
  if (!record) return;
  record.ops.push(op);
  request.addEventListener("success", () => {
    if (op.op === "put") op.key = request.result as IDBValidKey;
  });
  request.addEventListener("error", () => (op.failed = true));
}

function storeOf(cursor: IDBCursor): IDBObjectStore {
  const source = cursor.source as IDBObjectStore | IDBIndex;
  return source instanceof IDBObjectStore ? source : (source as IDBIndex).objectStore;
}

function toRange(query: IDBValidKey | IDBKeyRange): Extract<Op, { op: "delete" }>["range"] {
  if (query instanceof IDBKeyRange) return { lower: query.lower, upper: query.upper, lowerOpen: query.lowerOpen, upperOpen: query.upperOpen };
  return { only: query };
}

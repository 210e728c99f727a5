// A file-backed IndexedDB for the Rust crypto store. matrix-js-sdk's Rust crypto keeps the device's
// identity keys, Olm sessions and room keys in IndexedDB, which Node lacks; fake-indexeddb provides
// the API but only in memory, and a bot whose keys change at each restart breaks every encrypted
// room it is in. So every committed read-write transaction is appended to a journal in the data dir
// (written before the transaction's own `complete` handlers run, so the crypto code never acts on a
// change that is not on disk yet), and the journal is folded into a snapshot at open and close.
//
// Files (dir 0700, files 0600): `snapshot.v8` — the whole store as of a generation, written
// atomically; `journal-<generation>.v8` — length-prefixed transaction records made after it.
// Loading replays every journal of the snapshot's generation and later; replaying a record the
// snapshot already holds is harmless (records carry resolved keys, so they are idempotent).
//
// With a mirror (the shared database, store.url), each snapshot and record is written there too, in
// the same bytes, and at open the mirror's copy is preferred to the files: it is the newest, as the
// last leader (maybe another machine) wrote it; the files here may be from an older lead of this one.
import { closeSync, existsSync, fdatasyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { deserialize, serialize } from "node:v8";
import { IDBCursor, IDBDatabase, IDBFactory, IDBKeyRange, IDBObjectStore } from "fake-indexeddb";
import type { StoredSnapshot } from "../contract.js";
import { applyOps, dumpDatabases, restoreDatabases, type DatabaseDump, type Op, type TxRecord } from "./idb-dump.js";

const SNAPSHOT = "snapshot.v8";
const JOURNAL_PATTERN = /^journal-(\d+)\.v8$/;
/** A journal past this size is folded into a new snapshot while running. */
const COMPACT_AT_BYTES = 16 * 1024 * 1024;

interface Snapshot {
  format: 1;
  generation: number;
  databases: DatabaseDump[];
}

export interface PersistentIndexedDb {
  /** An IndexedDB factory whose writes survive a restart. */
  readonly factory: IDBFactory;
  /** Writes a fresh snapshot and starts an empty journal. */
  compact(): Promise<void>;
  /** Compacts and closes the journal; the factory must not be used afterwards. */
  close(): Promise<void>;
}

/** A copy of the store kept elsewhere (the shared database): the same snapshots and records. */
export interface StoreMirror {
  load(): Promise<StoredSnapshot | undefined>;
  append(generation: number, record: Buffer): void;
  replace(generation: number, snapshot: Buffer): void;
  /** Resolves once what was handed over so far is written (or failed). */
  flushed(): Promise<void>;
}

/** Opens (or creates) the store in `dir` (or from `mirror`'s copy); `warn` hears about a torn journal tail after a crash. */
export async function openPersistentIndexedDb(dir: string, warn: (message: string) => void = () => undefined, mirror?: StoreMirror): Promise<PersistentIndexedDb> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const factory = new IDBFactory();
  const mirrored = await mirror?.load();
  const generation = mirrored ? await loadMirrored(dir, factory, mirrored) : await loadFiles(dir, factory, warn);
  const journal = new Journal(dir, generation, factory, mirror);
  await journal.compact();
  instrument(factory, journal);
  return {
    factory,
    compact: () => journal.compact(),
    close: async () => {
      await journal.compact();
      journal.close();
      await mirror?.flushed();
    },
  };
}

/** Restores the snapshot and journals in `dir`; gives the snapshot's generation. */
async function loadFiles(dir: string, factory: IDBFactory, warn: (message: string) => void): Promise<number> {
  const snapshotPath = join(dir, SNAPSHOT);
  const snapshot: Snapshot = existsSync(snapshotPath) ? (deserialize(readFileSync(snapshotPath)) as Snapshot) : { format: 1, generation: 0, databases: [] };
  await restoreDatabases(factory, snapshot.databases);
  for (const generation of journalGenerations(dir).filter((g) => g >= snapshot.generation)) {
    for (const record of readJournal(join(dir, journalName(generation)), warn)) await applyOps(factory, record);
  }
  return snapshot.generation;
}

/** Restores the mirror's copy, and drops the files in `dir` it supersedes; gives its generation. */
async function loadMirrored(dir: string, factory: IDBFactory, mirrored: StoredSnapshot): Promise<number> {
  const snapshot = deserialize(mirrored.snapshot) as Snapshot;
  await restoreDatabases(factory, snapshot.databases);
  for (const record of mirrored.records) await applyOps(factory, deserialize(record) as TxRecord);
  for (const name of readdirSync(dir)) if (name === SNAPSHOT || JOURNAL_PATTERN.test(name)) rmSync(join(dir, name), { force: true });
  return snapshot.generation;
}

class Journal {
  private fd?: number;
  private bytes = 0;
  private syncScheduled = false;
  private compacting?: Promise<void>;

  constructor(
    private readonly dir: string,
    private generation: number,
    private readonly factory: IDBFactory,
    private readonly mirror?: StoreMirror,
  ) {}

  append(record: TxRecord): void {
    if (this.fd === undefined) return;
    const payload = serialize(record);
    const frame = Buffer.alloc(4 + payload.length);
    frame.writeUInt32LE(payload.length, 0);
    payload.copy(frame, 4);
    writeSync(this.fd, frame);
    this.bytes += frame.length;
    this.mirror?.append(this.generation, payload);
    // The write above survives a crash of this process; the data sync (against a power loss) is
    // batched per turn of the event loop, as one sync sees many small transactions.
    if (!this.syncScheduled) {
      this.syncScheduled = true;
      setImmediate(() => {
        this.syncScheduled = false;
        if (this.fd !== undefined) fdatasyncSync(this.fd);
      });
    }
  }

  get size(): number {
    return this.bytes;
  }

  /** Switches to a new journal first, then snapshots: nothing committed in between is lost. */
  compact(): Promise<void> {
    this.compacting ??= this.doCompact().finally(() => (this.compacting = undefined));
    return this.compacting;
  }

  private async doCompact(): Promise<void> {
    const previous = this.fd;
    this.generation += 1;
    this.fd = openSync(join(this.dir, journalName(this.generation)), "a", 0o600);
    this.bytes = 0;
    if (previous !== undefined) closeSync(previous);
    const generation = this.generation;
    const databases = await dumpDatabases(this.factory);
    const snapshot = serialize({ format: 1, generation, databases } satisfies Snapshot);
    writeAtomically(join(this.dir, SNAPSHOT), snapshot);
    this.mirror?.replace(generation, snapshot);
    for (const old of journalGenerations(this.dir).filter((g) => g < this.generation)) rmSync(join(this.dir, journalName(old)), { force: true });
  }

  close(): void {
    if (this.fd === undefined) return;
    fdatasyncSync(this.fd);
    closeSync(this.fd);
    this.fd = undefined;
  }
}

function journalName(generation: number): string {
  return `journal-${generation}.v8`;
}

function journalGenerations(dir: string): number[] {
  return readdirSync(dir)
    .map((name) => JOURNAL_PATTERN.exec(name)?.[1])
    .filter((g): g is string => g !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

function readJournal(path: string, warn: (message: string) => void): TxRecord[] {
  const data = readFileSync(path);
  const records: TxRecord[] = [];
  let offset = 0;
  while (offset + 4 <= data.length) {
    const length = data.readUInt32LE(offset);
    if (offset + 4 + length > data.length) break;
    records.push(deserialize(data.subarray(offset + 4, offset + 4 + length)) as TxRecord);
    offset += 4 + length;
  }
  if (offset < data.length) warn(`${path}: ignored ${data.length - offset} bytes of a transaction cut short by a crash`);
  return records;
}

function writeAtomically(path: string, data: Buffer): void {
  const temporary = `${path}.tmp`;
  const fd = openSync(temporary, "w", 0o600);
  try {
    writeSync(fd, data);
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
  const dirFd = openSync(join(path, ".."), "r");
  try {
    fdatasyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}

// ---- recording: which transaction of which journal an operation belongs to ----

const journals = new WeakMap<object, Journal>();
const recorders = new WeakMap<object, TxRecord>();
const upgrades = new WeakMap<object, TxRecord>();

function startRecording(transaction: IDBTransaction, journal: Journal, record: TxRecord): void {
  recorders.set(transaction, record);
  // Listeners added here run before the transaction's `oncomplete`, which the crypto code awaits.
  transaction.addEventListener("complete", () => {
    journal.append({ ...record, ops: record.ops.filter((op) => !op.failed) });
    if (journal.size > COMPACT_AT_BYTES) void journal.compact();
  });
}

function instrument(factory: IDBFactory, journal: Journal): void {
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

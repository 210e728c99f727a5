// A file-backed IndexedDB for the Rust crypto store. matrix-js-sdk's Rust crypto keeps the device's
// identity keys, Olm sessions and room keys in IndexedDB, which Node lacks; fake-indexeddb provides
// the API but only in memory, and a bot whose keys change at each restart breaks every encrypted
// room it is in. So every committed read-write transaction is appended to a journal in the data dir
// (written before the transaction's own `complete` handlers run, so the crypto code never acts on a
// change that is not on disk yet; idb-recording.ts records them), and the journal is folded into a
// snapshot at open and close.
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
import { IDBFactory } from "fake-indexeddb";
import type { StoredSnapshot } from "../contract.js";
import { applyOps, dumpDatabases, restoreDatabases, type DatabaseDump, type TxRecord } from "./idb-dump.js";
import { instrument, type WriteJournal } from "./idb-recording.js";

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

class Journal implements WriteJournal {
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

  /** A read-write transaction committed: appended, and past COMPACT_AT_BYTES the journal is folded into a new snapshot. */
  committed(record: TxRecord): void {
    this.append(record);
    if (this.bytes > COMPACT_AT_BYTES) void this.compact();
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

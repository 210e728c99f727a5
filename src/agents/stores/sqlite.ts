// Read-only SQLite access through sql.js (WebAssembly: no native build). The database file is read
// into memory, so nothing is locked or written. Pages still in the `-wal` file are applied to that
// copy, so a live database that has not checkpointed yet is read as its writer sees it.

import { promises as fs } from "node:fs";
import type { Database, SqlJsStatic } from "sql.js";
import { StoreReadError } from "./errors.js";

/** Largest database read: sql.js holds the whole file (and its WAL) in memory. */
const SQLITE_MAX_BYTES = 512 * 1024 * 1024;
const WAL_HEADER_BYTES = 32;
const WAL_FRAME_HEADER_BYTES = 24;
/** Offsets of the file-format read/write version bytes; 2 means WAL mode. */
const WRITE_VERSION_OFFSET = 18;
const READ_VERSION_OFFSET = 19;

let engine: Promise<SqlJsStatic> | undefined;

/** Loads sql.js once, on first use (never at import time: `baton start` must stay fast). */
async function sqlJs(): Promise<SqlJsStatic> {
  engine ??= (async () => {
    // Its .wasm is found beside its script (in node_modules/sql.js/dist, or dist/bundle where the build copies both).
    const mod = await import("sql.js");
    return mod.default();
  })();
  return engine;
}

/** Applies committed WAL frames of the current generation to a copy of the database. */
function applyWal(db: Buffer, wal: Buffer): Buffer {
  if (wal.length < WAL_HEADER_BYTES) return db;
  const magic = wal.readUInt32BE(0);
  if (magic !== 0x377f0682 && magic !== 0x377f0683) return db;
  const pageSize = wal.readUInt32BE(8) || 65536;
  const salt1 = wal.readUInt32BE(16);
  const salt2 = wal.readUInt32BE(20);
  const frameBytes = WAL_FRAME_HEADER_BYTES + pageSize;
  let out = Buffer.from(db);
  const pending: Array<{ pgno: number; offset: number }> = [];
  for (let off = WAL_HEADER_BYTES; off + frameBytes <= wal.length; off += frameBytes) {
    if (wal.readUInt32BE(off + 8) !== salt1 || wal.readUInt32BE(off + 12) !== salt2) break; // older generation
    pending.push({ pgno: wal.readUInt32BE(off), offset: off + WAL_FRAME_HEADER_BYTES });
    const commitPages = wal.readUInt32BE(off + 4);
    if (commitPages === 0) continue;
    // A commit frame: the transaction's pages become part of the database.
    const size = commitPages * pageSize;
    if (out.length < size) out = Buffer.concat([out, Buffer.alloc(size - out.length)]);
    for (const f of pending) wal.copy(out, (f.pgno - 1) * pageSize, f.offset, f.offset + pageSize);
    out = out.subarray(0, size);
    pending.length = 0;
  }
  return out;
}

export interface SqliteFile {
  query<T extends Record<string, unknown>>(sql: string, params?: unknown[]): T[];
  tables(): Set<string>;
  close(): void;
}

/** Opens a SQLite file read-only (in memory). */
export async function openSqlite(file: string): Promise<SqliteFile> {
  const size = (await fs.stat(file)).size;
  if (size > SQLITE_MAX_BYTES) throw new StoreReadError(`${file} is ${Math.round(size / 1024 / 1024)} MB; Baton reads SQLite stores up to 512 MB.`);
  let bytes: Buffer = await fs.readFile(file);
  try {
    bytes = applyWal(bytes, await fs.readFile(`${file}-wal`));
  } catch {
    // No WAL file: the database file is complete.
  }
  if (bytes.length > READ_VERSION_OFFSET) {
    // The in-memory copy has no WAL beside it; open it in rollback-journal mode.
    bytes[WRITE_VERSION_OFFSET] = 1;
    bytes[READ_VERSION_OFFSET] = 1;
  }
  let db: Database;
  try {
    db = new (await sqlJs()).Database(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length));
  } catch (err) {
    throw new StoreReadError(`Cannot open ${file} as SQLite.`, { cause: err });
  }
  function query<T extends Record<string, unknown>>(sql: string, params: unknown[] = []): T[] {
    const out: T[] = [];
    for (const res of db.exec(sql, params)) {
      for (const row of res.values) {
        const rec: Record<string, unknown> = {};
        res.columns.forEach((c, i) => {
          rec[c] = row[i];
        });
        out.push(rec as T);
      }
    }
    return out;
  }
  return {
    query,
    tables: () => new Set(query<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").map((r) => r.name)),
    close: () => db.close(),
  };
}

/** Column names of a table (for stores whose schema grew over versions). */
export function columns(db: SqliteFile, table: string): Set<string> {
  return new Set(db.query<{ name: string }>(`PRAGMA table_info("${table.replace(/"/g, '""')}")`).map((r) => r.name));
}

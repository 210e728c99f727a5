// `baton backup <file>` and `baton restore <file>`: the data dir as a gzipped tar, taken while Baton
// runs. Its logs (*.jsonl: threads, sessions, outbound queue) only ever grow by whole lines appended
// and fsync'd, or are replaced whole by rename when compacted; every other file is written whole and
// renamed into place. So each file is read through one open descriptor — the inode it had at that
// moment — and a log is cut after its last complete line: every file in the backup is one the daemon
// could have left after a crash, which it starts from. The lock file and the cache are left out.
// Restore unpacks into a folder beside the data dir and renames it into place, under the data dir's
// lock, so no Baton runs on a half-restored data dir.
import { chmodSync, closeSync, existsSync, fstatSync, lstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { BatonError } from "../kernel/errors.js";
import { batonVersion } from "../kernel/install.js";
import { acquireDataDirLock, LOCK_FILE } from "./lock.js";

/** What a backup holds besides the data dir's files, at its root: the tar is refused by restore without it. */
const MANIFEST = "baton-backup.json";
/** Not backed up: the running daemon's lock, and what is rebuilt on demand. */
const LEFT_OUT = new Set([LOCK_FILE, "cache"]);
const PRIVATE_DIR = 0o700;
const PRIVATE_FILE = 0o600;
const NEWLINE = 0x0a;

export interface BackupSummary {
  file: string;
  dataDir: string;
  files: number;
  bytes: number;
}

/** The bytes of the file open at `fd` as it is now; for a log, up to its last complete line. */
function consistentCopy(fd: number, isLog: boolean): Buffer {
  const size = fstatSync(fd).size;
  const buffer = Buffer.alloc(size);
  let read = 0;
  while (read < size) {
    const n = readSync(fd, buffer, read, size - read, read);
    if (n === 0) break;
    read += n;
  }
  const content = buffer.subarray(0, read);
  if (!isLog) return content;
  return content.subarray(0, content.lastIndexOf(NEWLINE) + 1);
}

/** Copies `from` into `to`, file by file; returns the number of files and their bytes. */
function snapshot(from: string, to: string, top = true): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const name of readdirSync(from)) {
    if (top && LEFT_OUT.has(name)) continue;
    const source = join(from, name);
    const target = join(to, name);
    const stat = lstatSync(source, { throwIfNoEntry: false });
    if (!stat) continue; // gone since the listing (a file renamed over, a temp file)
    if (stat.isDirectory()) {
      mkdirSync(target, { mode: PRIVATE_DIR });
      const inner = snapshot(source, target, false);
      files += inner.files;
      bytes += inner.bytes;
    } else if (stat.isFile()) {
      let fd: number;
      try {
        fd = openSync(source, "r");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
        throw error;
      }
      try {
        const content = consistentCopy(fd, name.endsWith(".jsonl"));
        writeFileSync(target, content, { mode: stat.mode & 0o777 });
        files += 1;
        bytes += content.length;
      } finally {
        closeSync(fd);
      }
    } // sockets, fifos and symlinks are not Baton's state
  }
  return { files, bytes };
}

export async function backupDataDir(dataDir: string, file: string): Promise<BackupSummary> {
  if (!existsSync(dataDir)) throw new BatonError(`There is no data dir at ${dataDir} to back up.`);
  const out = resolve(file);
  if (out.startsWith(`${resolve(dataDir)}/`)) throw new BatonError(`Write the backup outside the data dir (${dataDir}).`);
  mkdirSync(dirname(out), { recursive: true });
  const staging = mkdtempSync(join(dirname(out), ".baton-backup-"));
  try {
    chmodSync(staging, PRIVATE_DIR);
    const { files, bytes } = snapshot(dataDir, staging);
    writeFileSync(join(staging, MANIFEST), `${JSON.stringify({ baton: batonVersion(), created: new Date().toISOString(), dataDir, files }, null, 2)}\n`, { mode: PRIVATE_FILE });
    const tar = await import("tar");
    const partial = `${out}.partial`;
    // Tokens are inside: the file is the owner's only, from its first byte.
    writeFileSync(partial, "", { mode: PRIVATE_FILE });
    await tar.create({ gzip: true, file: partial, cwd: staging, portable: true }, readdirSync(staging));
    renameSync(partial, out);
    return { file: out, dataDir, files, bytes };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

function isEmptyDataDir(dir: string): boolean {
  return !existsSync(dir) || readdirSync(dir).every((name) => name === LOCK_FILE);
}

export async function restoreDataDir(file: string, dataDir: string, options: { force?: boolean } = {}): Promise<BackupSummary & { setAside?: string }> {
  const source = resolve(file);
  if (!existsSync(source) || !statSync(source).isFile()) throw new BatonError(`There is no backup file at ${source}.`);
  if (!isEmptyDataDir(dataDir) && !options.force) {
    throw new BatonError(`The data dir ${dataDir} is not empty. Restore into a fresh one (--data-dir), or add --force to set the current one aside first.`);
  }
  mkdirSync(dirname(resolve(dataDir)), { recursive: true });
  const staging = mkdtempSync(join(dirname(resolve(dataDir)), `.${basename(dataDir)}-restore-`));
  try {
    chmodSync(staging, PRIVATE_DIR);
    const tar = await import("tar");
    try {
      // node-tar keeps every entry inside `cwd` (no absolute paths, no `..`).
      await tar.extract({ file: source, cwd: staging, strict: true, preserveOwner: false });
    } catch (error) {
      throw new BatonError(`${source} is not a Baton backup (it could not be read as a gzipped tar: ${(error as Error).message}).`, { cause: error });
    }
    if (!existsSync(join(staging, MANIFEST))) throw new BatonError(`${source} is not a Baton backup (it has no ${MANIFEST}).`);
    const manifest = JSON.parse(readFileSync(join(staging, MANIFEST), "utf8")) as { files: number };
    rmSync(join(staging, MANIFEST));
    const bytes = countBytes(staging);
    // The data dir's lock, held while the files change: a Baton running on it refuses this, and none starts meanwhile.
    mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR });
    const release = acquireDataDirLock(dataDir);
    let setAside: string | undefined;
    try {
      for (const name of readdirSync(dataDir)) {
        if (name === LOCK_FILE) continue;
        setAside ??= mkdtempSync(`${resolve(dataDir)}.before-restore-`);
        renameSync(join(dataDir, name), join(setAside, name));
      }
      for (const name of readdirSync(staging)) renameSync(join(staging, name), join(dataDir, name));
      chmodSync(dataDir, PRIVATE_DIR);
    } finally {
      release();
    }
    return { file: source, dataDir, files: manifest.files, bytes, setAside };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

function countBytes(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    total += stat.isDirectory() ? countBytes(path) : stat.isFile() ? stat.size : 0;
  }
  return total;
}

const kb = (bytes: number) => (bytes < 1024 * 1024 ? `${Math.max(1, Math.round(bytes / 1024))} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`);

export async function runBackup(dataDir: string, file: string, json: boolean): Promise<number> {
  const summary = await backupDataDir(dataDir, file);
  process.stdout.write(
    json ? `${JSON.stringify(summary)}\n` : `Backed up ${summary.dataDir} to ${relative(process.cwd(), summary.file) || summary.file} (${summary.files} files, ${kb(summary.bytes)}).\n`,
  );
  return 0;
}

export async function runRestore(file: string, dataDir: string, options: { force?: boolean; json?: boolean }): Promise<number> {
  const summary = await restoreDataDir(file, dataDir, options);
  if (options.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
  else {
    const aside = summary.setAside ? ` The data dir's earlier content is in ${summary.setAside}.` : "";
    process.stdout.write(`Restored ${summary.files} files (${kb(summary.bytes)}) into ${summary.dataDir}.${aside} Start Baton with this data dir to continue.\n`);
  }
  return 0;
}

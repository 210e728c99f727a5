// One daemon per data dir: two would interleave the event log and fight over the tokens. The lock
// is the kernel's: an exclusive lock on the open file `baton.pid` (an open-file-description lock on
// Linux, flock elsewhere), so it dies with the process that holds it — a container restart, a
// kill -9 or a reused pid never leaves a lock behind. The pid written into the file is only there
// to name the holder in the error; a file left behind means nothing by itself.
import { closeSync, ftruncateSync, openSync, readFileSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { BatonError } from "../kernel/errors.js";
import { isProcessAlive } from "../kernel/process.js";

export const LOCK_FILE = "baton.pid";
const FILE_MODE = 0o600;

interface NativeLocks {
  tryLock(fd: number): boolean;
  unlock(fd: number): void;
}

let native: NativeLocks | null | undefined;
/** The native file lock (prebuilt for Linux, macOS and Windows), or null where it cannot load. */
function nativeLocks(): NativeLocks | null {
  if (native === undefined) {
    try {
      native = createRequire(import.meta.url)("fs-native-extensions") as NativeLocks;
    } catch {
      native = null;
    }
  }
  return native;
}

function alreadyRunning(dataDir: string, holder: string): BatonError {
  const pid = /^\d+$/.test(holder) ? holder : "unknown";
  return new BatonError(`Another Baton (pid ${pid}) is already running with the data dir ${dataDir}. Stop it first, or give this one its own --data-dir.`);
}

export function acquireDataDirLock(dataDir: string): () => void {
  const path = join(dataDir, LOCK_FILE);
  const locks = nativeLocks();
  if (!locks) return acquirePidFile(dataDir, path);
  const fd = openSync(path, "a+", FILE_MODE);
  let locked: boolean;
  try {
    locked = locks.tryLock(fd);
  } catch (error) {
    closeSync(fd);
    throw new BatonError(`Could not lock the data dir ${dataDir} (${(error as Error).message}).`, { cause: error });
  }
  if (!locked) {
    const holder = readFileSync(path, "utf8").trim();
    closeSync(fd);
    throw alreadyRunning(dataDir, holder);
  }
  ftruncateSync(fd, 0);
  writeSync(fd, `${process.pid}\n`);
  // The file stays: unlinking a locked file would let a third process lock a new inode while a
  // second one still waits on the old. Closing the descriptor is what releases the lock.
  let released = false;
  return () => {
    if (released) return;
    released = true;
    locks.unlock(fd);
    closeSync(fd);
  };
}

/**
 * Where the native lock cannot load: a pid file, taken over when its pid is gone or is this very
 * process (a container's Baton is often pid 1 after every restart).
 */
function acquirePidFile(dataDir: string, path: string): () => void {
  let holder = "";
  try {
    holder = readFileSync(path, "utf8").trim();
  } catch {
    // no file: free
  }
  const pid = Number(holder);
  if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isProcessAlive(pid)) throw alreadyRunning(dataDir, holder);
  const fd = openSync(path, "w", FILE_MODE);
  writeSync(fd, `${process.pid}\n`);
  closeSync(fd);
  return () => undefined;
}

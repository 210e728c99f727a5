// One daemon per data dir: two would interleave the event log and fight over the tokens. The lock
// is a pid file created exclusively; a file left by a process that is gone is taken over.
import { constants, openSync, readFileSync, rmSync, writeSync, closeSync } from "node:fs";
import { join } from "node:path";
import { BatonError } from "../kernel/errors.js";
import { isProcessAlive } from "../kernel/process.js";

export const LOCK_FILE = "baton.pid";

export function acquireDataDirLock(dataDir: string): () => void {
  const path = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number(readFileSync(path, "utf8").trim());
      if (Number.isInteger(holder) && holder > 0 && isProcessAlive(holder)) {
        throw new BatonError(`Another Baton (pid ${holder}) is already running with the data dir ${dataDir}. Stop it first, or give this one its own --data-dir.`);
      }
      rmSync(path, { force: true }); // stale: its process is gone
    }
  }
  throw new BatonError(`Could not lock the data dir ${dataDir}.`);
}

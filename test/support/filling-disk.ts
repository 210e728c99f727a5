// A disk that fills up, at the file-operations boundary of the JSONL event log: writes really land
// on the real file, short, then fail with ENOSPC until space returns.
import { open, type FileHandle } from "node:fs/promises";
import type { LogFile } from "../../src/threads/store.js";

/**
 * A disk that fills up: the real file, whose next write stores only part of its bytes and returns
 * a short count, after which writes fail with ENOSPC until `space()` is called.
 */
export function fillingDisk(): { open: (path: string) => Promise<LogFile>; fillNow(): void; space(): void; failSync(): void } {
  let state: "ok" | "short" | "full" | "sync" = "ok";
  const enospc = () => Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
  return {
    fillNow: () => (state = "short"),
    space: () => (state = "ok"),
    failSync: () => (state = "sync"),
    open: async (path) => {
      const real: FileHandle = await open(path, "a", 0o600);
      return {
        write: async (buffer, offset, length) => {
          if (state === "full") throw enospc();
          if (state === "short") {
            state = "full";
            return real.write(buffer, offset, Math.max(1, Math.floor(length / 2)));
          }
          return real.write(buffer, offset, length);
        },
        datasync: async () => {
          if (state === "sync") throw Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO" });
          return real.datasync();
        },
        truncate: (len) => real.truncate(len),
        stat: () => real.stat(),
        close: () => real.close(),
      };
    },
  };
}

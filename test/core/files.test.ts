// The file cache: fetched only through a descriptor, capped per file while it streams in, kept
// under its per-route and total quotas (oldest files go first), pruned by age.
import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FileCache } from "../../src/core/files.js";
import { silentLogger } from "../../src/kernel/log.js";
import type { InboundFile } from "../../src/platforms/contract.js";

const KB = 1024;
let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

function cache(limits: { maxTotalBytes: number; maxRouteBytes: number; maxAgeMs?: number }): FileCache {
  root = mkdtempSync(join(tmpdir(), "baton-cache-test-"));
  const files = new FileCache(join(root, "cache"), { maxAgeMs: 7 * 86_400_000, ...limits }, silentLogger());
  files.open();
  return files;
}

/** A file of `bytes` bytes arriving in 1 KB chunks; `declared` is what the platform announced. */
function upload(name: string, bytes: number, declared: number | undefined = bytes): InboundFile & { fetched: number } {
  const file = {
    name,
    size: declared,
    fetched: 0,
    fetch: async () => {
      file.fetched++;
      return (async function* () {
        for (let sent = 0; sent < bytes; sent += KB) yield Buffer.alloc(Math.min(KB, bytes - sent), 7);
      })();
    },
  };
  return file;
}

function bytesOnDisk(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .reduce((sum, e) => sum + statSync(join(e.parentPath, e.name)).size, 0);
}

describe("file cache", () => {
  it("stays under the per-route quota, dropping the oldest files of that route first", async () => {
    const files = cache({ maxTotalBytes: 1000 * KB, maxRouteBytes: 50 * KB });
    const kept: string[] = [];
    for (let i = 0; i < 10; i++) {
      const result = await files.fetch("telegram:1", upload(`f${i}.bin`, 20 * KB), 100 * KB);
      expect(result.ok).toBe(true);
      if (result.ok) kept.push(result.file.path);
    }
    const other = await files.fetch("telegram:2", upload("other.bin", 20 * KB), 100 * KB);
    expect(bytesOnDisk(join(root!, "cache", "telegram_1"))).toBeLessThanOrEqual(50 * KB);
    // The newest two of the route remain; the other route was not touched.
    expect(readdirSync(join(root!, "cache", "telegram_1")).sort()).toEqual(
      kept
        .slice(-2)
        .map((p) => p.split("/").at(-1))
        .sort(),
    );
    expect(other.ok && statSync(other.file.path).size).toBe(20 * KB);
  });

  it("stays under the total quota across routes", async () => {
    const files = cache({ maxTotalBytes: 100 * KB, maxRouteBytes: 100 * KB });
    for (let i = 0; i < 12; i++) await files.fetch(`slack:T/C${i}`, upload(`f${i}.bin`, 15 * KB), 100 * KB);
    expect(files.totalBytes()).toBeLessThanOrEqual(100 * KB);
    expect(bytesOnDisk(join(root!, "cache"))).toBe(files.totalBytes());
  });

  it("refuses a file announced over the limit without fetching it, and stops one that lies about its size", async () => {
    const files = cache({ maxTotalBytes: 1000 * KB, maxRouteBytes: 1000 * KB });
    const announced = upload("big.bin", 200 * KB);
    expect(await files.fetch("r:1", announced, 100 * KB)).toEqual({ ok: false, note: expect.stringMatching(/big\.bin not downloaded: 0\.2 MB exceeds the 0\.1 MB limit/) });
    expect(announced.fetched).toBe(0);
    const liar = upload("liar.bin", 300 * KB, 10);
    expect(await files.fetch("r:1", liar, 100 * KB)).toMatchObject({ ok: false, note: expect.stringMatching(/liar\.bin not downloaded/) });
    expect(bytesOnDisk(join(root!, "cache"))).toBe(0);
  });

  it("prunes files older than the maximum age, also those an earlier run left", async () => {
    const files = cache({ maxTotalBytes: 1000 * KB, maxRouteBytes: 1000 * KB, maxAgeMs: 60_000 });
    const old = await files.fetch("r:1", upload("old.bin", KB), 100 * KB);
    const fresh = await files.fetch("r:1", upload("fresh.bin", KB), 100 * KB);
    if (!old.ok || !fresh.ok) throw new Error("fetch failed");
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(old.file.path, hourAgo, hourAgo);
    files.close();
    // A new run reads what is on disk, with its times, and prunes.
    const reopened = new FileCache(join(root!, "cache"), { maxTotalBytes: 1000 * KB, maxRouteBytes: 1000 * KB, maxAgeMs: 60_000 }, silentLogger());
    reopened.open();
    reopened.close();
    expect(readdirSync(join(root!, "cache", "r_1"))).toEqual([fresh.file.path.split("/").at(-1)]);
  });

  it("keeps every file in its route's folder, whatever the name says", async () => {
    const files = cache({ maxTotalBytes: 1000 * KB, maxRouteBytes: 1000 * KB });
    const result = await files.fetch("web:../../etc", upload("../../passwd", KB), 100 * KB);
    if (!result.ok) throw new Error("fetch failed");
    const inside = relative(join(root!, "cache"), result.file.path).split(sep);
    expect(inside).toHaveLength(2);
    expect(inside.every((part) => part !== ".." && part !== "")).toBe(true);
    expect(statSync(result.file.path).mode & 0o777).toBe(0o600);
  });
});

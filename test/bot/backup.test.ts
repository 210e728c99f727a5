// `baton backup` of a running daemon, `baton restore` into a fresh data dir, and a daemon started on
// that one: the web conversation continues in the same thread and the same agent session (turn 2
// of it). A log's line half-written at backup time is left out; restore refuses a data dir in use or
// not empty, and a file that is not a backup.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { backupDataDir, restoreDataDir } from "../../src/bot/backup.js";
import { askWebChat, cleanUp, CLEANUP_MS, pathWith, startUntil, stop, tempDir } from "../packaging/helpers.js";

const BATON = join(process.cwd(), "bin", "baton.js");
afterEach(cleanUp, CLEANUP_MS);

function baton(args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [BATON, ...args], { encoding: "utf8", timeout: 60_000 });
}

describe("baton backup / restore", { timeout: 180_000 }, () => {
  it("a backup of a running daemon, restored into a fresh data dir, brings its threads and sessions back", async () => {
    const dir = tempDir("baton-backup-");
    const config = join(dir, "baton.yaml");
    writeFileSync(config, `agents: { default: demo }\nops: { listen: 127.0.0.1:0 }\nworkspaces: { roots: ["${dir}"], default: "${dir}" }\nplatforms:\n  web: { listen: 0 }\n`);
    const env = { ...process.env, PATH: pathWith(), HOME: dir };
    const start = (dataDir: string) => startUntil(process.execPath, [BATON, "start", "--config", config, "--data-dir", dataDir], { cwd: dir, env }, /Baton ready/);
    const webUrl = (out: string) => /^Web chat: (http:\S+)$/m.exec(out)![1];

    const original = join(dir, "original");
    const first = await start(original);
    const answer = await askWebChat(webUrl(first.out()), "before the backup", "conv-kept");
    const session = /Turn 1 of session (\S+):/.exec(answer)![1];

    const file = join(dir, "backups", "baton.tgz");
    const backup = baton(["backup", file, "--data-dir", original, "--json"]);
    expect(backup.status, backup.stderr).toBe(0);
    expect(JSON.parse(backup.stdout)).toMatchObject({ file, dataDir: original });
    expect(statSync(file).mode & 0o777).toBe(0o600); // tokens are inside
    expect(await stop(first.child)).toBe(0);

    const fresh = join(dir, "fresh");
    const restore = baton(["restore", file, "--data-dir", fresh]);
    expect(restore.status, restore.stderr).toBe(0);
    expect(restore.stdout).toMatch(/^Restored \d+ files \(.+\) into .*fresh\. Start Baton with this data dir to continue\.\n$/);
    expect(readFileSync(join(fresh, "web-token"), "utf8")).toBe(readFileSync(join(original, "web-token"), "utf8"));
    expect(statSync(fresh).mode & 0o777).toBe(0o700);

    const second = await start(fresh);
    // The same thread (conversation), the same agent session: its second turn.
    expect(await askWebChat(webUrl(second.out()), "after the restore", "conv-kept")).toContain(`Turn 2 of session ${session}: you said`);

    // Refused while that daemon runs on it (it is not empty either); --force still needs the lock.
    const busy = baton(["restore", file, "--data-dir", fresh, "--force"]);
    expect(busy.status).toBe(1);
    expect(busy.stderr).toMatch(/^baton: Another Baton \(pid \d+\) is already running with the data dir/);
    expect(await stop(second.child)).toBe(0);
    const notEmpty = baton(["restore", file, "--data-dir", fresh]);
    expect(notEmpty.stderr).toContain("is not empty. Restore into a fresh one (--data-dir), or add --force");
  });

  it("cuts a log after its last complete line; refuses what is not a backup; --force sets the old content aside", async () => {
    const dir = tempDir("baton-backup-");
    const data = join(dir, "data");
    mkdirSync(join(data, "threads"), { recursive: true });
    writeFileSync(join(data, "threads", "events.jsonl"), '{"a":1}\n{"b":2}\n{"half', { mode: 0o600 });
    writeFileSync(join(data, "web-token"), "secret", { mode: 0o600 });
    writeFileSync(join(data, "baton.pid"), "123\n");
    mkdirSync(join(data, "cache"));
    writeFileSync(join(data, "cache", "big"), "x");
    const file = join(dir, "b.tgz");
    expect(await backupDataDir(data, file)).toMatchObject({ files: 2 });

    const target = join(dir, "target");
    mkdirSync(target);
    writeFileSync(join(target, "old-file"), "old");
    await expect(restoreDataDir(file, target)).rejects.toThrow(/is not empty/);
    const restored = await restoreDataDir(file, target, { force: true });
    expect(readFileSync(join(target, "threads", "events.jsonl"), "utf8")).toBe('{"a":1}\n{"b":2}\n');
    expect(readFileSync(join(restored.setAside!, "old-file"), "utf8")).toBe("old");
    expect(statSync(join(target, "web-token")).mode & 0o777).toBe(0o600);
    expect(() => statSync(join(target, "cache"))).toThrow();

    writeFileSync(join(dir, "not.tgz"), "just text");
    await expect(restoreDataDir(join(dir, "not.tgz"), join(dir, "other"))).rejects.toThrow(/is not a Baton backup/);
    await expect(backupDataDir(data, join(data, "inside.tgz"))).rejects.toThrow(/outside the data dir/);
  });
});

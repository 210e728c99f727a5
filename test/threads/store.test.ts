import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { JsonlEventStore, MemoryEventStore } from "../../src/threads/store.js";
import { fillingDisk } from "../support/filling-disk.js";
import { makeEvent, type ThreadEvent } from "../../src/threads/events.js";
import { ThreadRegistry } from "../../src/threads/registry.js";
import { runEventStoreContract } from "./store-contract.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "baton-store-"));
  dirs.push(d);
  return d;
}

runEventStoreContract("memory", {
  async create() {
    const store = new MemoryEventStore();
    return { store, reopen: async () => store };
  },
});

runEventStoreContract("jsonl", {
  async create() {
    const path = join(tempDir(), "threads", "events.jsonl");
    return { store: new JsonlEventStore(path), reopen: async () => new JsonlEventStore(path) };
  },
});

runEventStoreContract("jsonl, read in 7-byte chunks", {
  async create() {
    const path = join(tempDir(), "threads", "events.jsonl");
    return { store: new JsonlEventStore(path, { readChunkBytes: 7 }), reopen: async () => new JsonlEventStore(path, { readChunkBytes: 7 }) };
  },
});

async function ids(store: JsonlEventStore): Promise<string[]> {
  const out: string[] = [];
  await store.replay((e) => out.push(e.id));
  return out;
}

describe("JsonlEventStore on disk", () => {
  it("creates the directory 0700 and the file 0600", async () => {
    const dir = join(tempDir(), "threads");
    const store = new JsonlEventStore(join(dir, "events.jsonl"));
    await store.append([makeEvent("th_1", { type: "route_attached", route: "x:1" })]);
    await store.close();
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "events.jsonl")).mode & 0o777).toBe(0o600);
  });

  it("skips a torn last line with a warning, cuts it, and appends cleanly after it", async () => {
    const path = join(tempDir(), "events.jsonl");
    const store = new JsonlEventStore(path);
    const good = [makeEvent("th_1", { type: "thread_created", workspace: "/w", agent: "demo" }), makeEvent("th_1", { type: "route_attached", route: "t:1" })];
    await store.append(good);
    await store.close();
    appendFileSync(path, '{"v":1,"id":"ev_torn","thread":"th_1","type":"rou');

    const reopened = new JsonlEventStore(path);
    const seen: string[] = [];
    const report = await reopened.replay((e) => seen.push(e.id));
    expect(seen).toEqual(good.map((e) => e.id));
    expect(report.skipped).toHaveLength(1);
    expect(report.skipped[0].reason).toMatch(/torn last line/);
    const next = makeEvent("th_1", { type: "session_observed", session: "s1" });
    await reopened.append([next]);
    await reopened.close();
    const lines = readFileSync(path, "utf8").trim().split("\n");
    expect(lines.map((l) => JSON.parse(l).id)).toEqual([...good.map((e) => e.id), next.id]);
  });

  it("skips a corrupt line in the middle without losing the rest", async () => {
    const path = join(tempDir(), "events.jsonl");
    const a = makeEvent("th_1", { type: "thread_created", workspace: "/w", agent: "demo" });
    const b = makeEvent("th_1", { type: "route_attached", route: "t:1" });
    writeFileSync(path, `${JSON.stringify(a)}\nnot json at all\n${JSON.stringify(b)}\n`);
    const { registry, report } = await ThreadRegistry.open(new JsonlEventStore(path));
    expect(report.skipped).toEqual([{ line: 2, reason: "not valid JSON" }]);
    expect(registry.threadForRoute("t:1")?.id).toBe("th_1");
  });

  it("skips and reports events that are JSON but not valid events, and still opens", async () => {
    const path = join(tempDir(), "events.jsonl");
    const a = makeEvent("th_1", { type: "thread_created", workspace: "/w", agent: "demo" });
    const b = makeEvent("th_1", { type: "route_attached", route: "t:1" });
    const bad = [
      { type: "thread_created", thread: "x" },
      { ...makeEvent("th_1", { type: "route_attached", route: "t:2" }), route: undefined },
      { ...makeEvent("th_1", { type: "session_observed", session: "s" }), session: 42 },
      { ...makeEvent("th_1", { type: "route_attached", route: "t:3" }), type: "route_teleported" },
      [1, 2, 3],
    ];
    writeFileSync(path, `${[a, ...bad, b].map((e) => JSON.stringify(e)).join("\n")}\n`);
    const { registry, report } = await ThreadRegistry.open(new JsonlEventStore(path));
    expect(report.events).toBe(2);
    expect(report.skipped.map((s) => s.line)).toEqual([2, 3, 4, 5, 6]);
    for (const s of report.skipped) expect(s.reason).toMatch(/^not a valid event/);
    expect(report.skipped[0].reason).toMatch(/workspace/);
    expect(registry.get("x")).toBeUndefined();
    expect(registry.threadForRoute("t:1")?.id).toBe("th_1");
  });

  it("reads lines cut across read chunks, multi-byte characters included", async () => {
    const path = join(tempDir(), "events.jsonl");
    const events = Array.from({ length: 20 }, (_, i) => makeEvent("th_1", { type: "route_attached", route: `t:${"ü€😀".repeat(i)}` }));
    writeFileSync(path, `${events.map((e) => JSON.stringify(e)).join("\n")}\n`);
    for (const chunk of [1, 2, 3, 5, 64]) {
      const routes: string[] = [];
      await new JsonlEventStore(path, { readChunkBytes: chunk }).replay((e) => routes.push((e as Extract<ThreadEvent, { type: "route_attached" }>).route));
      expect(routes).toEqual(events.map((e) => (e as Extract<ThreadEvent, { type: "route_attached" }>).route));
    }
  });
});

describe("a disk that fills up", () => {
  it("fails the append whose write came up short, and keeps the log line-aligned for the next one", async () => {
    const path = join(tempDir(), "events.jsonl");
    const disk = fillingDisk();
    const store = new JsonlEventStore(path, { open: disk.open });
    const first = makeEvent("th_1", { type: "thread_created", workspace: "/w", agent: "demo" });
    await store.append([first]);
    disk.fillNow();
    const lost = makeEvent("th_1", { type: "thread_closed", reason: "/close" });
    await expect(store.append([lost])).rejects.toThrow(/no space left/i);
    disk.space();
    const next = makeEvent("th_1", { type: "route_attached", route: "t:1" });
    await store.append([next]);
    await store.close();
    // On disk: whole lines only, without the failed event.
    const lines = readFileSync(path, "utf8").split("\n");
    expect(lines.pop()).toBe("");
    expect(lines.map((l) => JSON.parse(l).id)).toEqual([first.id, next.id]);
    const reopened = new JsonlEventStore(path);
    expect(await ids(reopened)).toEqual([first.id, next.id]);
  });

  it("fails the append whose fsync failed and takes its lines back out", async () => {
    const path = join(tempDir(), "events.jsonl");
    const disk = fillingDisk();
    const store = new JsonlEventStore(path, { open: disk.open });
    const first = makeEvent("th_1", { type: "thread_created", workspace: "/w", agent: "demo" });
    await store.append([first]);
    disk.failSync();
    await expect(store.append([makeEvent("th_1", { type: "thread_closed", reason: "x" })])).rejects.toThrow(/i\/o error/i);
    disk.space();
    const next = makeEvent("th_1", { type: "route_attached", route: "t:1" });
    await store.append([next]);
    await store.close();
    expect(await ids(new JsonlEventStore(path))).toEqual([first.id, next.id]);
  });

  it("a close that could not be written fails, and the thread is still open after a restart", async () => {
    const path = join(tempDir(), "events.jsonl");
    const disk = fillingDisk();
    const { registry } = await ThreadRegistry.open(new JsonlEventStore(path, { open: disk.open }));
    const thread = await registry.create({ workspace: "/w", agent: "demo" }, "t:1");
    disk.fillNow();
    await expect(registry.close(thread.id, "/close")).rejects.toThrow(/could not be saved/i);
    expect(registry.get(thread.id)?.open).toBe(true);
    disk.space();
    await registry.attach("t:2", thread.id);
    const again = await ThreadRegistry.open(new JsonlEventStore(path));
    expect(again.report.skipped).toEqual([]);
    expect(again.registry.get(thread.id)?.open).toBe(true);
    expect(again.registry.threadForRoute("t:2")?.id).toBe(thread.id);
  });
});

describe("compaction on start", () => {
  const DAY_MS = 86_400_000;
  const NOW = new Date("2026-12-01T00:00:00Z");
  const daysAgo = (n: number) => new Date(NOW.getTime() - n * DAY_MS);

  async function history(path: string): Promise<{ open: string; recent: string; old: string[] }> {
    const store = new JsonlEventStore(path);
    const events: ThreadEvent[] = [];
    const thread = (id: string, days: number, closeDays?: number) => {
      events.push(makeEvent(id, { type: "thread_created", workspace: "/w", agent: "demo" }, daysAgo(days)));
      events.push(makeEvent(id, { type: "session_observed", session: `${id}-s1` }, daysAgo(days)));
      events.push(makeEvent(id, { type: "route_attached", route: `r:${id}` }, daysAgo(days)));
      if (closeDays !== undefined) events.push(makeEvent(id, { type: "thread_closed", reason: "/close" }, daysAgo(closeDays)));
    };
    const old = Array.from({ length: 50 }, (_, i) => `th_old${i}`);
    for (const id of old) thread(id, 90, 60);
    thread("th_open", 200);
    events.push(makeEvent("th_open", { type: "session_observed", session: "th_open-s2" }, daysAgo(100)));
    thread("th_recent", 10, 2);
    events.push(makeEvent("-", { type: "audit", action: "pickup", outcome: "invalid" }, daysAgo(100)));
    events.push(makeEvent("-", { type: "workspace_registered", path: "/outside", name: "scratch" }, daysAgo(300)));
    events.push(makeEvent("-", { type: "audit", action: "pickup", outcome: "attached" }, daysAgo(1)));
    await store.append(events);
    await store.close();
    return { open: "th_open", recent: "th_recent", old };
  }

  it("keeps open threads and recently closed ones, drops the rest, and restarts to the same state", async () => {
    const path = join(tempDir(), "events.jsonl");
    const { open, recent, old } = await history(path);
    const before = statSync(path).size;
    const { registry, report } = await ThreadRegistry.open(new JsonlEventStore(path), { now: () => NOW, compactMinDropped: 1 });
    expect(report.compacted).toEqual({ kept: 10, dropped: 201 });
    expect(statSync(path).size).toBeLessThan(before / 10);
    for (const r of [registry, (await ThreadRegistry.open(new JsonlEventStore(path), { now: () => NOW })).registry]) {
      expect(r.get(open)).toMatchObject({ open: true, session: "th_open-s2", sessions: ["th_open-s1", "th_open-s2"] });
      expect(r.threadForRoute(`r:${open}`)?.id).toBe(open);
      expect(r.get(recent)).toMatchObject({ open: false, closeReason: "/close" });
      for (const id of old) expect(r.get(id)).toBeUndefined();
      expect(r.registeredWorkspaces()).toEqual([{ path: "/outside", name: "scratch" }]);
    }
    const audits = readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .filter((e) => e.type === "audit");
    expect(audits.map((e) => e.outcome)).toEqual(["attached"]);
  });

  it("leaves a log alone when compacting would not drop enough", async () => {
    const path = join(tempDir(), "events.jsonl");
    await history(path);
    const before = readFileSync(path, "utf8");
    // (An audit event past audit.keep would be reason enough: the 100-day-old one is within 200 days.)
    const { report } = await ThreadRegistry.open(new JsonlEventStore(path), { now: () => NOW, compactMinDropped: 1_000, auditRetentionMs: 200 * DAY_MS });
    expect(report.compacted).toBeUndefined();
    expect(readFileSync(path, "utf8")).toBe(before);
  });

  it("drops an audit event past audit.keep at start however little else could go, and a running registry's expireAudit drops the next", async () => {
    const path = join(tempDir(), "events.jsonl");
    let now = NOW;
    const store = new JsonlEventStore(path);
    await store.append([
      makeEvent("th_a", { type: "thread_created", workspace: "/w", agent: "demo" }, daysAgo(100)),
      makeEvent("-", { type: "audit", action: "access", outcome: "refused", user: "test:eve" }, daysAgo(31)),
      makeEvent("-", { type: "audit", action: "access", outcome: "refused", user: "test:old" }, daysAgo(40)),
      makeEvent("th_a", { type: "audit", action: "turn", outcome: "done", user: "test:ana" }, daysAgo(1)),
    ]);
    await store.close();
    const { registry, report } = await ThreadRegistry.open(new JsonlEventStore(path), { now: () => now, compactMinDropped: 1_000, auditRetentionMs: 35 * DAY_MS });
    expect(report.compacted).toEqual({ kept: 3, dropped: 1 });
    const users = () =>
      readFileSync(path, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))
        .filter((e) => e.type === "audit")
        .map((e) => e.user);
    expect(users()).toEqual(["test:eve", "test:ana"]);
    expect(await registry.expireAudit(35 * DAY_MS)).toBe(0);
    now = new Date(NOW.getTime() + 5 * DAY_MS);
    expect(await registry.expireAudit(35 * DAY_MS)).toBe(1);
    expect(users()).toEqual(["test:ana"]);
    expect(registry.get("th_a")).toMatchObject({ open: true });
  });
});

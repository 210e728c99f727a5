import { mkdtempSync, readFileSync, statSync, writeFileSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JsonlEventStore, MemoryEventStore } from "../../src/threads/store.js";
import { makeEvent } from "../../src/threads/events.js";
import { ThreadRegistry } from "../../src/threads/registry.js";
import { runEventStoreContract } from "./store-contract.js";

runEventStoreContract("memory", {
  async create() {
    const store = new MemoryEventStore();
    return { store, reopen: async () => store };
  },
});

runEventStoreContract("jsonl", {
  async create() {
    const path = join(mkdtempSync(join(tmpdir(), "baton-store-")), "threads", "events.jsonl");
    return { store: new JsonlEventStore(path), reopen: async () => new JsonlEventStore(path) };
  },
});

describe("JsonlEventStore on disk", () => {
  it("creates the directory 0700 and the file 0600", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "baton-store-")), "threads");
    const store = new JsonlEventStore(join(dir, "events.jsonl"));
    await store.append([makeEvent("th_1", { type: "route_attached", route: "x:1" })]);
    await store.close();
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "events.jsonl")).mode & 0o777).toBe(0o600);
  });

  it("skips a torn last line with a warning, cuts it, and appends cleanly after it", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "baton-store-")), "events.jsonl");
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
    const path = join(mkdtempSync(join(tmpdir(), "baton-store-")), "events.jsonl");
    const a = makeEvent("th_1", { type: "thread_created", workspace: "/w", agent: "demo" });
    const b = makeEvent("th_1", { type: "route_attached", route: "t:1" });
    writeFileSync(path, `${JSON.stringify(a)}\nnot json at all\n${JSON.stringify(b)}\n`);
    const { registry, report } = await ThreadRegistry.open(new JsonlEventStore(path));
    expect(report.skipped).toEqual([{ line: 2, reason: "not valid JSON" }]);
    expect(registry.threadForRoute("t:1")?.id).toBe("th_1");
  });
});

// The daemon against a damaged or full event log: a bad line is skipped and reported, never fatal;
// a change that could not be written fails the command that made it and changes nothing.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeEvent } from "../../src/threads/events.js";
import { JsonlEventStore } from "../../src/threads/store.js";
import { startTestBaton, type TestBaton } from "../support/harness.js";
import { fillingDisk } from "../support/filling-disk.js";
import { TestPlatform } from "../support/test-platform.js";

let baton: TestBaton | undefined;
afterEach(async () => {
  await baton?.stop({ cleanup: true });
  baton = undefined;
});

describe("the event log under faults", () => {
  it("a malformed event is skipped and reported, and the daemon starts with the rest", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "baton-test-"));
    mkdirSync(join(dataDir, "threads"));
    const good = makeEvent("th_good", { type: "thread_created", workspace: process.cwd(), agent: "demo" });
    const attached = makeEvent("th_good", { type: "route_attached", route: "test:c1" });
    writeFileSync(join(dataDir, "threads", "events.jsonl"), `${[JSON.stringify(good), '{"type":"thread_created","thread":"x"}', JSON.stringify(attached)].join("\n")}\n`);
    const platform = new TestPlatform();
    baton = await startTestBaton({ adapters: [platform], dataDir });
    expect(baton.daemon.core.registry.threadForRoute("test:c1")?.id).toBe("th_good");
    expect(baton.daemon.core.registry.get("x")).toBeUndefined();
    await platform.say("test:c1", "still here?");
    await platform.waitFor("test:c1", /you said "still here\?"/);
  });

  it("a /close that could not be saved says so, and the thread stays open and working", async () => {
    const disk = fillingDisk();
    const platform = new TestPlatform();
    baton = await startTestBaton({ adapters: [platform], store: (dir) => new JsonlEventStore(join(dir, "threads", "events.jsonl"), { open: disk.open }) });
    const route = platform.route("c1");
    await platform.say(route, "hello");
    await platform.waitFor(route, /you said "hello"/);
    const thread = baton.daemon.core.registry.threadForRoute(route)!;
    disk.fillNow();
    await platform.say(route, "/close");
    await platform.waitFor(route, /could not be saved to Baton's data dir \(ENOSPC: no space left on device/);
    expect(baton.daemon.core.registry.get(thread.id)?.open).toBe(true);
    disk.space();
    await platform.say(route, "after");
    await platform.waitFor(route, /you said "after"/);
    expect(baton.daemon.core.registry.threadForRoute(route)?.id).toBe(thread.id);
  });
});

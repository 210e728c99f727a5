// Subagents in the thread log: replaying the events gives the same listing as applying them live,
// a new multi-agent turn drops the finished subagents of earlier ones (not the unfinished), and
// every event Baton writes matches the schema replay checks lines against.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryEventStore } from "../../../src/threads/store.js";
import { ThreadRegistry } from "../../../src/threads/registry.js";
import { subagentEventSchemas } from "../../../src/core/subagents/records.js";
import type { ThreadEvent } from "../../../src/threads/events.js";

const base = { v: z.number(), id: z.string(), at: z.string(), thread: z.string() };
const schema = z.discriminatedUnion("type", [...subagentEventSchemas(base)]);

describe("subagent events", () => {
  it("replay gives the live listing; a new turn keeps only the unfinished of earlier turns; events match the schema", async () => {
    const store = new MemoryEventStore();
    const { registry } = await ThreadRegistry.open(store);
    const t = await registry.create({ workspace: "/w", agent: "claude" });
    const common = { agent: "codex", mode: "collaboration" as const, task: "Review", rounds: 2 };
    await registry.addSubagents(t.id, [
      { run: "r1", name: "a", ...common, context: "ctx", isolation: "worktree" },
      { run: "r1", name: "b", ...common, profile: "fast" },
    ]);
    const tree = { path: "/w/.baton/worktrees/x", branch: "baton/x", base: "abc", cwd: "/w/.baton/worktrees/x" };
    await registry.updateSubagent(t.id, { name: "a", state: "running", round: 1, session: "s-a", worktree: tree });
    await registry.updateSubagent(t.id, { name: "a", message: { round: 1, text: "first" }, files: ["f.ts"] });
    await registry.updateSubagent(t.id, { name: "a", round: 2, message: { round: 2, text: "second" } });
    await registry.updateSubagent(t.id, { name: "a", worktreeRemoved: { branch: "baton/x" } });
    await registry.updateSubagent(t.id, { name: "a", state: "done", note: "" });
    await registry.updateSubagent(t.id, { name: "b", state: "interrupted", recovery: "pending", note: "Baton stopped" });

    const live = structuredClone(registry.get(t.id)!.subagents);
    expect(live[0]).toMatchObject({ name: "a", state: "done", session: "s-a", round: 2, messages: ["first", "second"], files: ["f.ts"], branch: "baton/x", worktree: undefined });
    expect(live[1]).toMatchObject({ name: "b", state: "interrupted", recovery: "pending", profile: "fast" });

    const replayed = (await ThreadRegistry.open(store)).registry;
    expect(replayed.get(t.id)!.subagents).toEqual(live);

    // A new multi-agent turn: finished `a` leaves the listing, interrupted `b` stays.
    await registry.addSubagents(t.id, [{ run: "r2", name: "c", agent: "claude", mode: "parallel", task: "Test", rounds: 1 }]);
    expect(registry.get(t.id)!.subagents.map((s) => s.name)).toEqual(["b", "c"]);

    const events: ThreadEvent[] = [];
    await store.replay((e) => events.push(e));
    const subagentEvents = events.filter((e) => e.type.startsWith("subagent_"));
    expect(subagentEvents).toHaveLength(9);
    for (const e of subagentEvents) expect(schema.safeParse(JSON.parse(JSON.stringify(e))).success, JSON.stringify(e)).toBe(true);
    expect(schema.safeParse({ v: 1, id: "x", at: "t", thread: t.id, type: "subagent_updated", name: "a", state: "lost" }).success).toBe(false);
  });
});

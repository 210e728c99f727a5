// The contract every EventLogStore keeps (Hono-style shared suite): run it with a factory.
import { describe, expect, it } from "vitest";
import { makeEvent, type ThreadEvent } from "../../src/threads/events.js";
import type { EventLogStore } from "../../src/threads/store.js";

export interface StoreFactory {
  /** A fresh, empty store. `reopen` gives a new store instance over the same data. */
  create(): Promise<{ store: EventLogStore; reopen(): Promise<EventLogStore> }>;
}

async function all(store: EventLogStore): Promise<ThreadEvent[]> {
  const out: ThreadEvent[] = [];
  await store.replay((e) => out.push(e));
  return out;
}

export function runEventStoreContract(name: string, factory: StoreFactory): void {
  describe(`EventLogStore contract: ${name}`, () => {
    it("replays nothing when empty", async () => {
      const { store } = await factory.create();
      expect(await all(store)).toEqual([]);
      await store.close();
    });

    it("replays appended events in order, across reopen", async () => {
      const { store, reopen } = await factory.create();
      const events = Array.from({ length: 50 }, (_, i) => makeEvent(`th_${i % 3}`, { type: "route_attached", route: `test:${i}` }));
      await store.append(events.slice(0, 10));
      await Promise.all(events.slice(10).map((e) => store.append([e])));
      await store.close();
      const again = await reopen();
      expect((await all(again)).map((e) => e.id)).toEqual(events.map((e) => e.id));
      await again.close();
    });

    it("keeps every field, schema version, id and time", async () => {
      const { store } = await factory.create();
      const e = makeEvent("th_1", { type: "thread_created", workspace: "/w", agent: "demo", profile: "p", session: "s", origin: "test" });
      await store.append([e]);
      const [back] = await all(store);
      expect(back).toEqual(e);
      expect(back.v).toBe(1);
      expect(back.id).toMatch(/^ev_/);
      expect(Date.parse(back.at)).not.toBeNaN();
      await store.close();
    });

    it("compacts to the events it is told to keep, in order, across reopen, and appends after them", async () => {
      const { store, reopen } = await factory.create();
      const events = Array.from({ length: 30 }, (_, i) => makeEvent(`th_${i % 3}`, { type: "route_attached", route: `test:${i}` }));
      await store.append(events);
      const result = await store.compact((e) => e.thread !== "th_1");
      const kept = events.filter((e) => e.thread !== "th_1");
      expect(result).toEqual({ kept: kept.length, dropped: events.length - kept.length });
      expect((await all(store)).map((e) => e.id)).toEqual(kept.map((e) => e.id));
      const later = makeEvent("th_1", { type: "route_attached", route: "test:later" });
      await store.append([later]);
      await store.close();
      const again = await reopen();
      expect((await all(again)).map((e) => e.id)).toEqual([...kept, later].map((e) => e.id));
      await again.close();
    });

    it("does not let a replayed event be mutated into the store", async () => {
      const { store } = await factory.create();
      await store.append([makeEvent("th_1", { type: "session_observed", session: "a" })]);
      await store.replay((e) => {
        (e as { session: string }).session = "mutated";
      });
      expect((await all(store))[0]).toMatchObject({ session: "a" });
      await store.close();
    });
  });
}

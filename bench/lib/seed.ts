// Open threads written into a data dir before Baton starts, through the registry's own API (so the
// bench follows any change of the log's format): what "1,000 open threads" means in a figure.
import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { JsonlEventStore } from "../../src/threads/store.js";
import { ThreadRegistry } from "../../src/threads/registry.js";
import { REPO_ROOT } from "./baton.js";

/** Chat ids of seeded threads: far from the bench's live users. */
const FIRST_SEEDED_CHAT = 900_000_000;
const BATCH = 500;

export async function seedOpenThreads(dataDir: string, count: number): Promise<void> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
  const store = new JsonlEventStore(join(dataDir, "threads", "events.jsonl"));
  const { registry } = await ThreadRegistry.open(store);
  for (let i = 0; i < count; i += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, count - i) }, (_, j) => registry.create({ workspace: REPO_ROOT, agent: "demo" }, `telegram:${FIRST_SEEDED_CHAT + i + j}`));
    await Promise.all(batch);
  }
  await store.close();
  if (registry.openThreads().length !== count) throw new Error(`bench: seeded ${registry.openThreads().length} threads, wanted ${count}`);
}

// Several instances on PostgreSQL (store.url): the event log's append latency on PostgreSQL next to
// the JSONL file's, and takeover — the leader killed with kill -9 while a person writes, until the
// standby's answer reaches the chat at the wire. A real PostgreSQL server (Debian's package, as the
// tests start it) with durable commits, as a team would run it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { monotonicMs } from "../src/kernel/clock.js";
import { makeEvent } from "../src/threads/events.js";
import { JsonlEventStore, type EventLogStore } from "../src/threads/store.js";
import { PostgresEventStore } from "../src/store/postgres/event-store.js";
import { postgresMissing, startTestPostgres, type TestPostgres } from "../test/support/postgres.js";
import { FakeBotApi } from "../test/fakes/telegram/fake-bot-api.js";
import { BatonProcess, until } from "./lib/baton.js";
import { telegramUser } from "./lib/fakes.js";
import { figure, type Figure } from "./lib/figure.js";

export interface TakeoverScale {
  appends: number;
  kills: number;
  /** Events in the log before the instances start (open threads, each with its route and sessions seen). */
  logEvents: number;
}

export const TAKEOVER_FULL: TakeoverScale = { appends: 2_000, kills: 5, logEvents: 50_000 };
export const TAKEOVER_TINY: TakeoverScale = { appends: 50, kills: 2, logEvents: 500 };
/** Events per seeded thread: created, its route, then sessions seen. */
const EVENTS_PER_THREAD = 25;
const TAKEOVER_TARGET_MS = 10_000;
/** Lease timing of the bench's instances (the defaults: 5 s lease, renewed every second). */
const LEASE = { lease_ms: 5_000, renew_ms: 1_000 };

export async function benchTakeover(scale: TakeoverScale): Promise<Array<Figure | string>> {
  const missing = postgresMissing();
  if (missing) return [`takeover: not measured — ${missing}`];
  const server = await startTestPostgres({ fsync: "on", synchronous_commit: "on", full_page_writes: "on" });
  try {
    return [...(await appendLatency(server, scale.appends)), ...(await takeovers(server, scale.kills, scale.logEvents))];
  } finally {
    await server.close();
  }
}

/** One event per append, each awaited (a thread's events as a turn makes them), durable when it resolves. */
async function timeAppends(store: EventLogStore, count: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await store.append([makeEvent(`th_${i % 50}`, { type: "route_attached", route: `telegram:${i}` })]);
    samples.push(performance.now() - started);
  }
  return samples;
}

async function appendLatency(server: TestPostgres, count: number): Promise<Figure[]> {
  const { pool } = await server.migratedPool();
  const dir = mkdtempSync(join(tmpdir(), "baton-bench-append-"));
  try {
    const jsonl = new JsonlEventStore(join(dir, "events.jsonl"));
    const onJsonl = await timeAppends(jsonl, count);
    await jsonl.close();
    const onPostgres = await timeAppends(new PostgresEventStore(pool, () => 0), count);
    const definition = `one event appended and awaited until durable, ${count} in a row`;
    return [
      figure({ id: "append-jsonl", label: "event append, JSONL file (fsync)", definition, unit: "ms" }, onJsonl),
      figure({ id: "append-postgres", label: "event append, PostgreSQL (commit, fsync on)", definition: `${definition}; a loopback PostgreSQL server`, unit: "ms" }, onPostgres),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function instanceConfig(fake: FakeBotApi, url: string, id: string): string {
  return stringify({
    agents: { default: "demo", spare_host: false },
    access: { allow: ["telegram:*"] },
    ops: { listen: "127.0.0.1:0" },
    instance: { id },
    store: { url, ...LEASE },
    workspaces: { default: process.cwd(), roots: [process.cwd()] },
    rendering: { show_usage: false },
    platforms: { telegram: { token: fake.token, api_root: fake.apiRoot } },
    log: { level: "info", format: "json" },
  });
}

/** The `ms` of the new leader's "thread registry replayed" log line. */
async function replayMs(baton: BatonProcess): Promise<number> {
  await until(() => baton.logLines.some((l) => l.text.includes("thread registry replayed")), "the registry replayed", 60_000, 5);
  return (JSON.parse(baton.logLines.find((l) => l.text.includes("thread registry replayed"))!.text) as { ms: number }).ms;
}

/** A log of `count` events, all of open threads (a start's compaction keeps them), as a team's would hold. */
async function seedLog(server: TestPostgres, url: string, count: number): Promise<void> {
  const { pool } = await server.migratedPool(url);
  const store = new PostgresEventStore(pool, () => 0);
  for (let thread = 0; thread * EVENTS_PER_THREAD < count; thread++) {
    const id = `th_seed${thread}`;
    await store.append([
      makeEvent(id, { type: "thread_created", workspace: process.cwd(), agent: "demo" }),
      makeEvent(id, { type: "route_attached", route: `telegram:-100${thread}` }),
      ...Array.from({ length: EVENTS_PER_THREAD - 2 }, (_, i) => makeEvent(id, { type: "session_observed", session: `s${thread}-${i}` })),
    ]);
  }
  await store.close();
}

/** Kill -9 of the leader, a message sent at that moment, until its answer is at the wire; a new standby each round. */
async function takeovers(server: TestPostgres, kills: number, logEvents: number): Promise<Figure[]> {
  const url = await server.database();
  await seedLog(server, url, logEvents);
  const fake = await FakeBotApi.start({ username: "bench_ha_bot" });
  const person = telegramUser(fake, 1);
  const running: BatonProcess[] = [];
  const samples: number[] = [];
  const ready: number[] = [];
  const replay: number[] = [];
  let next = 0;
  const startInstance = () => {
    const baton = new BatonProcess({ config: instanceConfig(fake, url, `bench-${next++}`), keepLog: true });
    running.push(baton);
    return baton;
  };
  try {
    let leader = startInstance();
    await leader.waitForLine(/Baton ready/);
    for (let round = 0; round < kills; round++) {
      const standby = startInstance();
      await standby.waitForLine(/standing by/);
      const text = `after kill ${round}`;
      process.kill(leader.pid, "SIGKILL");
      const killedAt = performance.now();
      const killedAtMonotonic = monotonicMs();
      person.send(text);
      await until(() => fake.sentTo(person.chatId).some((m) => m.text.includes(`you said "${text}"`)), `the answer after kill ${round}`, 60_000, 5);
      samples.push(performance.now() - killedAt);
      ready.push((await standby.waitForLine(/Baton ready/)).at - killedAtMonotonic);
      replay.push(await replayMs(standby));
      await leader.stop();
      running.splice(running.indexOf(leader), 1);
      leader = standby;
    }
  } finally {
    await Promise.all(running.map((b) => b.stop()));
    await fake.close();
  }
  const setup = `lease ${LEASE.lease_ms} ms, renewed every ${LEASE.renew_ms} ms, a log of ${logEvents} events, ${kills} kills`;
  return [
    figure({ id: "takeover-ready", label: "takeover: kill -9 → the standby leads and is ready", definition: `kill -9 of the leader → the standby's "Baton ready" line; ${setup}`, unit: "ms" }, ready),
    figure(
      { id: "takeover-replay", label: "takeover: event log replay on the new leader", definition: `the new leader's registry replay (its log's "thread registry replayed" ms); ${setup}`, unit: "ms" },
      replay,
    ),
    figure(
      {
        id: "takeover",
        label: "takeover, leader killed (PostgreSQL store)",
        definition: `kill -9 of the leading instance with a standby up (lease ${LEASE.lease_ms} ms, renewed every ${LEASE.renew_ms} ms), a log of ${logEvents} events → a message sent at that moment answered at Telegram's wire by the standby, ${kills} kills`,
        unit: "ms",
      },
      samples,
      { on: "tail", below: TAKEOVER_TARGET_MS, text: "< 10 s" },
    ),
  ];
}

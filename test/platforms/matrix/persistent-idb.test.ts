import { afterEach, beforeEach, expect, it } from "vitest";
import { appendFileSync, cpSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { IDBKeyRange } from "fake-indexeddb";
import { openPersistentIndexedDb, type PersistentIndexedDb } from "../../../src/platforms/matrix/persistent-idb.js";

let root: string;
let dir: string;
const open: PersistentIndexedDb[] = [];
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "baton-idb-"));
  dir = join(root, "crypto");
});
afterEach(async () => {
  for (const store of open.splice(0)) await store.close().catch(() => undefined);
  rmSync(root, { recursive: true, force: true });
});

async function start(at = dir): Promise<PersistentIndexedDb> {
  const store = await openPersistentIndexedDb(at);
  open.push(store);
  return store;
}

const done = <T>(request: IDBRequest<T>) => new Promise<T>((resolve, reject) => ((request.onsuccess = () => resolve(request.result)), (request.onerror = () => reject(request.error))));
const committed = (tx: IDBTransaction) => new Promise<void>((resolve, reject) => ((tx.oncomplete = () => resolve()), (tx.onabort = () => reject(tx.error))));

function openDb(factory: IDBFactory, version: number, upgrade: (db: IDBDatabase, tx: IDBTransaction, oldVersion: number) => void = () => undefined): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = factory.open("app", version);
    request.onupgradeneeded = (event) => upgrade(request.result, request.transaction!, event.oldVersion);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function contents(factory: IDBFactory, version: number, store: string): Promise<Array<[IDBValidKey, unknown]>> {
  const db = await openDb(factory, version);
  const tx = db.transaction(store, "readonly");
  const [keys, values] = await Promise.all([done(tx.objectStore(store).getAllKeys()), done(tx.objectStore(store).getAll())]);
  db.close();
  return keys.map((k, i) => [k, values[i]]);
}

it("keeps schema, data, binary values and every kind of write across a restart", async () => {
  let store = await start();
  let db = await openDb(store.factory, 1, (d) => {
    d.createObjectStore("inline", { keyPath: "id" }).createIndex("byName", "name", { unique: true });
    d.createObjectStore("outOfLine");
    d.createObjectStore("counter", { autoIncrement: true });
  });
  let tx = db.transaction(["inline", "outOfLine", "counter"], "readwrite");
  tx.objectStore("inline").put({ id: "a", name: "alice", key: new Uint8Array([1, 2, 3]) });
  tx.objectStore("inline").add({ id: "b", name: "bob" });
  tx.objectStore("inline").put({ id: "c", name: "carol" });
  for (const k of ["k1", "k2", "k3", "k4"]) tx.objectStore("outOfLine").put({ v: k }, k);
  tx.objectStore("counter").add("first");
  tx.objectStore("counter").add("second");
  await committed(tx);
  tx = db.transaction(["inline", "outOfLine"], "readwrite");
  tx.objectStore("outOfLine").delete(IDBKeyRange.bound("k2", "k3"));
  const cursorRequest = tx.objectStore("inline").openCursor();
  cursorRequest.onsuccess = () => {
    const cursor = cursorRequest.result;
    if (!cursor) return;
    if (cursor.key === "b") cursor.update({ ...cursor.value, name: "bobby" });
    if (cursor.key === "c") cursor.delete();
    cursor.continue();
  };
  await committed(tx);
  // An aborted transaction leaves nothing behind.
  tx = db.transaction(["outOfLine"], "readwrite");
  tx.objectStore("outOfLine").put({ v: "never" }, "k9");
  tx.abort();
  await committed(tx).catch(() => undefined);
  db.close();
  // The files as a crash would leave them (no close, no compaction): the journal alone must do.
  const crashed = join(root, "crashed");
  cpSync(dir, crashed, { recursive: true });
  await store.close();

  store = await start(crashed);
  expect(await contents(store.factory, 1, "inline")).toEqual([
    ["a", { id: "a", name: "alice", key: new Uint8Array([1, 2, 3]) }],
    ["b", { id: "b", name: "bobby" }],
  ]);
  expect(await contents(store.factory, 1, "outOfLine")).toEqual([
    ["k1", { v: "k1" }],
    ["k4", { v: "k4" }],
  ]);
  expect(await contents(store.factory, 1, "counter")).toEqual([
    [1, "first"],
    [2, "second"],
  ]);
  // Indexes and the key generator survive too.
  db = await openDb(store.factory, 2, (d, upgradeTx, old) => {
    expect(old).toBe(1);
    upgradeTx.objectStore("inline").deleteIndex("byName");
    d.deleteObjectStore("outOfLine");
    upgradeTx.objectStore("counter").add("third");
  });
  expect(db.transaction("inline").objectStore("inline").indexNames.contains("byName")).toBe(false);
  db.close();
  await store.close();

  store = await start(crashed);
  db = await openDb(store.factory, 2);
  expect([...db.objectStoreNames]).toEqual(["counter", "inline"]);
  expect(db.transaction("inline").objectStore("inline").indexNames.contains("byName")).toBe(false);
  db.close();
  expect(await contents(store.factory, 2, "counter")).toEqual([
    [1, "first"],
    [2, "second"],
    [3, "third"],
  ]);
});

it("a torn transaction at the journal's end (a crash mid-write) is skipped with a warning", async () => {
  const store = await start();
  const db = await openDb(store.factory, 1, (d) => d.createObjectStore("s"));
  const tx = db.transaction("s", "readwrite");
  tx.objectStore("s").put("kept", "x");
  await committed(tx);
  db.close();
  const crashed = join(root, "crashed");
  cpSync(dir, crashed, { recursive: true });
  const journal = readdirSync(crashed).find((n) => n.startsWith("journal-"))!;
  appendFileSync(join(crashed, journal), Buffer.from([200, 0, 0, 0, 1, 2]));
  const warnings: string[] = [];
  const again = await openPersistentIndexedDb(crashed, (w) => warnings.push(w));
  open.push(again);
  expect(await contents(again.factory, 1, "s")).toEqual([["x", "kept"]]);
  expect(warnings.join()).toMatch(/cut short by a crash/);
});

it("keeps its files private", async () => {
  const store = await start();
  const db = await openDb(store.factory, 1, (d) => d.createObjectStore("s"));
  db.close();
  await store.compact();
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  for (const name of readdirSync(dir)) expect(statSync(join(dir, name)).mode & 0o777, name).toBe(0o600);
});

// A leader cut from the database for real (its line to PostgreSQL goes silent, as a network does):
// it stops serving once its lease runs out, and the standby takes over. A message that reaches the
// old leader while it drains cannot be saved there: it is never told "kept" and then dropped; one it
// queued while it still led, whose save failed, is said to be unsaved.
// Shipped CLI, PostgreSQL behind a loopback proxy that cuts the line, the Telegram wire fake.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeBotApi } from "../fakes/telegram/fake-bot-api.js";
import { privateChat, user } from "../fakes/telegram/fake-chats.js";
import { waitFor } from "../platforms/telegram/helpers.js";
import { ClusterInstances } from "../support/cluster.js";
import { postgresForFile } from "../support/postgres-file.js";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.js";

const TIMEOUT_MS = 30_000;
const alice = user(111, "Alice", "alice");

const { missing, server } = postgresForFile();
let fake: FakeBotApi;
let dir: string;
let proxy: TcpProxy | undefined;
const clusters: ClusterInstances[] = [];

beforeAll(async () => {
  if (missing) return;
  fake = await FakeBotApi.start({ username: "cut_bot" });
  dir = realpathSync(mkdtempSync(join(tmpdir(), "baton-ha-cut-")));
});

afterAll(async () => {
  for (const cluster of clusters) await cluster.stopAll();
  await proxy?.close();
  await fake?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const said = (pattern: RegExp) => fake.sentTo(alice.id).filter((m) => pattern.test(m.text));
const send = (text: string) => fake.userSends({ chat: privateChat(alice), from: alice, text });

describe.skipIf(missing)("a leader cut from PostgreSQL", { timeout: 150_000 }, () => {
  it("a message reaching it while it drains is not told kept and then lost: the sender is told to send it again, or the next leader answers it", async () => {
    const url = await server().database();
    proxy = await startTcpProxy(server().port);
    const throughProxy = url.replace(`:${server().port}/`, `:${proxy.port}/`);
    const config = { access: { allow: ["telegram:111"] }, platforms: { telegram: { token: fake.token, api_root: fake.apiRoot } } };
    const cutOff = new ClusterInstances(dir, throughProxy);
    const direct = new ClusterInstances(dir, url);
    clusters.push(cutOff, direct);
    const a = cutOff.start("iota", config);
    await a.leading();
    const b = direct.start("kappa", config);
    await b.standingBy();
    send("before the cut");
    await waitFor(() => said(/you said "before the cut"/)[0], "iota answering", TIMEOUT_MS);

    // A turn streams when the line goes silent: its end is a write the cut holds, so the drain lasts.
    send("demo:slow 30");
    await waitFor(() => said(/step 1/)[0], "a slow turn streaming on iota", TIMEOUT_MS);
    proxy.blackhole();
    // While it still leads, a message behind that turn is queued; saving it waits on the silent
    // line and fails, and the person is told (the stop that follows drops it).
    send("queued during the cut");
    await waitFor(() => (a.err().includes("lost the lead") ? true : undefined), "iota losing the lead", TIMEOUT_MS);
    const lostAt = Date.now();
    send("sent to the cut-off leader");
    await b.leading();
    // Either iota still heard it and says plainly it was not saved, or it was left at Telegram and
    // the next leader answers it; never "kept" by an instance that could not keep it.
    const outcome = await waitFor(
      () =>
        said(/you said "sent to the cut-off leader"/)[0] ? "answered" : said(/could not save your message, so it will not run\. Send it again/)[0] ? "not saved: told to send it again" : undefined,
      "the message answered, or its sender told it was not saved",
      TIMEOUT_MS,
    );
    console.log(`a message to a leader cut from the database: ${outcome}`);
    await waitFor(() => said(/Your queued message could not be saved: if Baton restarts before it runs, send it again\./)[0], "the queued message's warning", TIMEOUT_MS);
    expect(said(/Your message is kept/)).toEqual([]);
    if (outcome === "answered") expect(said(/you said "sent to the cut-off leader"/)).toHaveLength(1);
    // Its drain ends (a write gives up within two leases, and once a probe finds the database out of
    // reach, half a lease after the lead was lost, the rest fail at once) and it stands by: what comes
    // next reaches the new leader only. Meanwhile its poller still competes for Telegram's updates,
    // and a message it takes is answered as above.
    await waitFor(() => (/lost the lead[\s\S]*ops listener ready/.test(a.err()) ? true : undefined), "iota standing by again", TIMEOUT_MS);
    console.log(`iota's drain after the cut (lost lead to standing by): ${Date.now() - lostAt} ms`);
    send("after the takeover");
    await waitFor(() => said(/you said "after the takeover"/)[0], "kappa answering", TIMEOUT_MS);
    expect(said(/you said "after the takeover"/)).toHaveLength(1);
  });
});

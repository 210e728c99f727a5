// Matrix across a takeover: the leader keeps its sync position (`next_batch`) in the shared cursors;
// the next leader, after its own first sync, reads what came since that position and handles it
// before the live events: a message sent while no instance was connected is answered once, and
// nothing from before the takeover is answered again; the same over a graceful hand-over (SIGTERM).
// Shipped CLI, PostgreSQL, the Matrix fake (an unencrypted DM: each instance has a device of its
// own, and the crypto store is not shared).
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRoom, join as joinRoom, sendEvent } from "../fakes/matrix/rooms.js";
import { FakeHomeserver } from "../fakes/matrix/server.js";
import type { Room } from "../fakes/matrix/state.js";
import { seenMessages } from "../fakes/matrix/view.js";
import { waitFor } from "../platforms/telegram/helpers.js";
import { ClusterInstances } from "../support/cluster.js";
import { exitOf } from "../support/process.js";
import { postgresForFile } from "../support/postgres-file.js";

const TIMEOUT_MS = 40_000;

const { missing, server } = postgresForFile();
let fake: FakeHomeserver;
let dir: string;
let cluster: ClusterInstances | undefined;
let db: pg.Pool | undefined;

beforeAll(async () => {
  if (missing) return;
  fake = await FakeHomeserver.start();
  dir = realpathSync(mkdtempSync(join(tmpdir(), "baton-ha-matrix-")));
});

afterAll(async () => {
  await cluster?.stopAll();
  await db?.end();
  await fake?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(missing)("Matrix across a takeover", { timeout: 150_000 }, () => {
  it("the next leader syncs on from the stored position: the message sent meanwhile is answered once, none before it again", async () => {
    const { password } = fake.register("baton", undefined, "Baton");
    const bot = `@baton:${fake.serverName}`;
    const alice = fake.register("alice", undefined, "Alice").userId;
    const dm: Room = createRoom(fake.state, alice, { invite: [bot] });
    joinRoom(fake.state, dm, bot);
    const say = (text: string) => sendEvent(fake.state, dm, alice, "m.room.message", { msgtype: "m.text", body: text });
    const answers = (said: string) => seenMessages(dm, bot).filter((m) => m.text.includes(`you said "${said}"`));
    const answered = (said: string) => waitFor(() => answers(said)[0], `the answer to "${said}"`, TIMEOUT_MS);

    const url = await server().database();
    db = new pg.Pool({ connectionString: url, max: 1 });
    cluster = new ClusterInstances(dir, url);
    const matrix = { access: { allow: [`matrix:${alice}`] }, platforms: { matrix: { homeserver: fake.baseUrl, user_id: bot, password } } };
    const a = cluster.start("alpha", matrix);
    await a.leading();
    const b = cluster.start("beta", matrix);
    await b.standingBy();
    say("before the crash");
    await answered("before the crash");
    // The leader's position caught up with everything in the room (its own answer included).
    const deadline = Date.now() + TIMEOUT_MS;
    for (;;) {
      const { rows } = await db.query<{ value: string }>("SELECT value FROM baton_cursors WHERE key LIKE 'matrix:%:next_batch'");
      if (rows[0]?.value === `s${fake.state.position}`) break;
      if (Date.now() > deadline) throw new Error(`the stored sync position (${rows[0]?.value}) did not reach s${fake.state.position}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    a.child.kill("SIGKILL");
    await exitOf(a.child);
    say("during the takeover");
    await b.leading();
    await answered("during the takeover");
    say("after the takeover");
    await answered("after the takeover");

    // A graceful hand-over right after an answer: the position the leader reached goes with it.
    const c = cluster.start("gamma", matrix);
    await c.standingBy();
    say("just before the hand-over");
    await answered("just before the hand-over");
    b.child.kill("SIGTERM");
    await exitOf(b.child);
    say("during the hand-over");
    await c.leading();
    await answered("during the hand-over");
    say("after the hand-over");
    await answered("after the hand-over");
    const all = ["before the crash", "during the takeover", "after the takeover", "just before the hand-over", "during the hand-over", "after the hand-over"];
    for (const said of all) expect(answers(said), said).toHaveLength(1);
  });
});

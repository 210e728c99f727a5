// Matrix across a takeover: the leader keeps its sync position (`next_batch`) in the shared cursors;
// the next leader, after its own first sync, reads what came since that position and handles it
// before the live events: a message sent while no instance was connected is answered once, and
// nothing from before the takeover is answered again; the same over a graceful hand-over (SIGTERM).
// The leader keeps its Matrix login and crypto store in PostgreSQL too: the next leader, with an
// empty data dir of its own, is the same device with the same keys, and decrypts what Alice's client encrypted for it before the crash (the room
// key it had) and after (a new room key over Olm: its identity keys), and again after a graceful
// hand-over to a third instance; `baton doctor` of an instance
// that never led finds the login and the keys there. Shipped CLI, PostgreSQL, the
// Matrix fake; in the encrypted DM Alice is a real matrix-js-sdk client with Rust crypto.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { promisify } from "node:util";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRoom, join as joinRoom, sendEvent } from "../fakes/matrix/rooms.js";
import { FakeHomeserver } from "../fakes/matrix/server.js";
import type { Room } from "../fakes/matrix/state.js";
import { seenMessages } from "../fakes/matrix/view.js";
import { createEncryptedDm, nextMessage, startSdkUser, waitForMember, type SdkUser } from "../platforms/matrix/sdk-user.js";
import { waitFor } from "../platforms/telegram/helpers.js";
import { ClusterInstances, type ClusterInstance } from "../support/cluster.js";
import { endProcessesIn, exitOf } from "../support/process.js";
import { postgresForFile } from "../support/postgres-file.js";

const TIMEOUT_MS = 40_000;
const execFileAsync = promisify(execFile);

const { missing, server } = postgresForFile();
let fake: FakeHomeserver;
let dir: string;
let cluster: ClusterInstances | undefined;
let db: pg.Pool | undefined;
let user: SdkUser | undefined;

beforeAll(async () => {
  if (missing) return;
  fake = await FakeHomeserver.start();
  fake.register("alice", undefined, "Alice");
  dir = realpathSync(mkdtempSync(join(tmpdir(), "baton-ha-matrix-")));
});

afterAll(async () => {
  await user?.stop();
  await cluster?.stopAll();
  await db?.end();
  await fake?.stop();
  if (dir) {
    await endProcessesIn(dir);
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Instances `first` and `second` for the bot `localpart` on a fresh database, the first leading, the second standing by. */
async function twoInstances(localpart: string, ids: [string, string]): Promise<{ bot: string; alice: string; a: ClusterInstance; b: ClusterInstance; matrix: Record<string, unknown> }> {
  await cluster?.stopAll();
  await db?.end();
  const { password } = fake.register(localpart, undefined, "Baton");
  const bot = `@${localpart}:${fake.serverName}`;
  const alice = `@alice:${fake.serverName}`;
  const url = await server().database();
  db = new pg.Pool({ connectionString: url, max: 1 });
  cluster = new ClusterInstances(dir, url);
  const matrix = { access: { allow: [`matrix:${alice}`] }, platforms: { matrix: { homeserver: fake.baseUrl, user_id: bot, password } } };
  const a = cluster.start(ids[0], matrix);
  await a.leading();
  const b = cluster.start(ids[1], matrix);
  await b.standingBy();
  return { bot, alice, a, b, matrix };
}

/** Waits until the leader's stored position caught up with everything in the rooms (its own answers included). */
async function positionCaughtUp(pool: pg.Pool): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const { rows } = await pool.query<{ value: string }>("SELECT value FROM baton_cursors WHERE key LIKE 'matrix:%:next_batch'");
    if (rows[0]?.value === `s${fake.state.position}`) return;
    if (Date.now() > deadline) throw new Error(`the stored sync position (${rows[0]?.value}) did not reach s${fake.state.position}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const sessionOf = (instance: ClusterInstance) => JSON.parse(readFileSync(join(instance.dataDir, "matrix", "matrix", "session.json"), "utf8")) as { device_id: string; access_token: string };

describe.skipIf(missing)("Matrix across a takeover", { timeout: 240_000 }, () => {
  it("the next leader syncs on from the stored position: the message sent meanwhile is answered once, none before it again", async () => {
    const { bot, alice, a, b, matrix } = await twoInstances("baton", ["alpha", "beta"]);
    const dm: Room = createRoom(fake.state, alice, { invite: [bot] });
    joinRoom(fake.state, dm, bot);
    const say = (text: string) => sendEvent(fake.state, dm, alice, "m.room.message", { msgtype: "m.text", body: text });
    const answers = (said: string) => seenMessages(dm, bot).filter((m) => m.text.includes(`you said "${said}"`));
    const answered = (said: string) => waitFor(() => answers(said)[0], `the answer to "${said}"`, TIMEOUT_MS);
    say("before the crash");
    await answered("before the crash");
    await positionCaughtUp(db!);

    a.child.kill("SIGKILL");
    await exitOf(a.child);
    say("during the takeover");
    await b.leading();
    await answered("during the takeover");
    say("after the takeover");
    await answered("after the takeover");

    // A graceful hand-over right after an answer: the position the leader reached goes with it.
    const c = cluster!.start("gamma", matrix);
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

  it("the next leader, with an empty data dir, is the same device: it decrypts and answers encrypted messages", async () => {
    const { bot, alice, a, b, matrix } = await twoInstances("crypto-bot", ["delta", "epsilon"]);
    user = await startSdkUser(fake, alice);
    const client = user.client;
    const roomId = await createEncryptedDm(user, bot);
    await waitForMember(user, roomId, bot, TIMEOUT_MS);
    const answerTo = (text: string) => nextMessage(user!, roomId, (c) => String(c["m.new_content"]?.body ?? c.body ?? "").includes(`you said "${text}"`), TIMEOUT_MS);
    const roundTrip = async (text: string) => {
      const reply = answerTo(text);
      await client.sendTextMessage(roomId, text);
      return reply;
    };
    expect((await roundTrip("before the crash")).isEncrypted()).toBe(true);
    const device = sessionOf(a).device_id;
    await positionCaughtUp(db!);

    a.child.kill("SIGKILL");
    await exitOf(a.child);
    // Encrypted while nobody leads, with the room key Alice's client shared with the bot's device.
    const duringTakeover = answerTo("during the takeover");
    await client.sendTextMessage(roomId, "during the takeover");
    await b.leading();
    expect((await duringTakeover).isEncrypted()).toBe(true);
    expect(sessionOf(b).device_id).toBe(device);
    // A new room key, sent over Olm to the device: the new leader has the device's identity keys.
    client.getCrypto()!.forceDiscardSession(roomId);
    expect((await roundTrip("with a new room key")).isEncrypted()).toBe(true);
    // A graceful hand-over (SIGTERM) to a third instance, also with an empty data dir: the store the
    // leader folded at its stop goes with the lead.
    const c = cluster!.start("zeta", matrix);
    await c.standingBy();
    b.child.kill("SIGTERM");
    await exitOf(b.child);
    await c.leading();
    expect((await roundTrip("after the hand-over")).isEncrypted()).toBe(true);
    expect(sessionOf(c).device_id).toBe(device);

    // One login and one upload of the device's keys: the same device throughout.
    expect(fake.callsTo(/\/login$/, "POST").filter((c) => c.body?.identifier?.user === bot)).toHaveLength(1);
    expect(fake.callsTo(/\/keys\/upload$/).filter((c) => c.userId === bot && c.body?.device_keys)).toHaveLength(1);
    const stored = await db!.query<{ key: string }>("SELECT key FROM baton_platform_snapshots ORDER BY key");
    expect(stored.rows.map((r) => r.key)).toEqual([`matrix:matrix:${bot}:crypto:${device}`, "matrix:matrix:session"]);
    // The login and the keys stay in the database and the data dirs: never in the logs.
    const token = sessionOf(b).access_token;
    for (const instance of [a, b, c]) expect(`${instance.out()}${instance.err()}`).not.toContain(token);
    // `baton doctor` of an instance that never led (an empty data dir) finds them in the database.
    const doctor = await execFileAsync(process.execPath, ["bin/baton.js", "doctor", "--json", "--config", join(dir, "epsilon.yaml"), "--data-dir", join(dir, "data-never-led")]).catch(
      (failed: { stdout: string }) => failed,
    );
    const matrixCheck = (JSON.parse(doctor.stdout) as { checks: Array<{ area: string; status: string; message: string }> }).checks.find((c) => c.area === "platform matrix");
    expect(matrixCheck).toMatchObject({ status: "ok", message: expect.stringContaining(`on device ${device}`) });
    expect(matrixCheck?.message).toMatch(/encryption: ready, .* store in the database \(\d+ KB\)/);
    expect(doctor.stdout).not.toContain(token);
  });
});

// Discord across a takeover: the leader keeps its gateway session (id, sequence, resume URL) in the
// shared cursors; the next leader RESUMEs it once, so a message sent while no instance was
// connected is replayed by the gateway and answered once — after a kill -9 and after a graceful
// hand-over (SIGTERM closes the session resumably). Shipped CLI, PostgreSQL, the Discord wire fake
// (which keeps a dropped session's events and replays them on RESUME).
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeDiscord, visibleText, type FakeUser } from "../fakes/discord/index.js";
import { waitFor } from "../platforms/telegram/helpers.js";
import { ClusterInstances } from "../support/cluster.js";
import { endProcessesIn, exitOf } from "../support/process.js";
import { postgresForFile } from "../support/postgres-file.js";

const TIMEOUT_MS = 30_000;
const SESSION_KEY = "discord:discord:gateway-session";

const { missing, server } = postgresForFile();
let fake: FakeDiscord;
let alice: FakeUser;
let dir: string;
let cluster: ClusterInstances | undefined;
let db: pg.Pool | undefined;

beforeAll(async () => {
  if (missing) return;
  fake = await new FakeDiscord().start();
  alice = fake.addUser("alice");
  dir = realpathSync(mkdtempSync(join(tmpdir(), "baton-ha-discord-")));
});

afterAll(async () => {
  await cluster?.stopAll();
  await db?.end();
  await fake?.stop();
  if (dir) {
    await endProcessesIn(dir);
    rmSync(dir, { recursive: true, force: true });
  }
});

const answers = (said: string) => fake.botMessages(fake.dmChannel(alice).id).filter((m) => visibleText(m.content).includes(`you said "${said}"`));
const answered = (said: string) => waitFor(() => answers(said)[0], `the answer to "${said}"`, TIMEOUT_MS);

/** The stored session has caught up with every event the fake sent it (so nothing is replayed twice). */
async function storedUpToDate(): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const { rows } = await db!.query<{ value: string }>("SELECT value FROM baton_cursors WHERE key = $1", [SESSION_KEY]);
    const stored = rows[0] && JSON.parse(rows[0].value);
    const live = stored && fake.gateway.sessions.get(stored.sessionId);
    if (live && stored.sequence === live.seq) return;
    if (Date.now() > deadline) throw new Error(`the stored gateway session did not catch up: ${rows[0]?.value}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(missing)("Discord across a takeover", { timeout: 150_000 }, () => {
  it("a message sent while no instance is connected is replayed to the next leader and answered once", async () => {
    const url = await server().database();
    db = new pg.Pool({ connectionString: url, max: 1 });
    cluster = new ClusterInstances(dir, url);
    const discord = { access: { allow: [`discord:${alice.id}`] }, platforms: { discord: { token: fake.token, api_url: fake.apiUrl } } };
    const a = cluster.start("alpha", discord);
    await a.leading();
    const b = cluster.start("beta", discord);
    await b.standingBy();
    fake.dm(alice, "before the crash");
    await answered("before the crash");
    await storedUpToDate();

    a.child.kill("SIGKILL");
    await exitOf(a.child);
    fake.dm(alice, "during the takeover");
    await b.leading();
    await answered("during the takeover");
    fake.dm(alice, "after the takeover");
    await answered("after the takeover");
    expect(fake.gateway.resumes).toBe(1);
    // The replayed session was ended; the new leader's own is the one stored now.
    expect(fake.gateway.sessions.size).toBe(1);
    await storedUpToDate();

    // A graceful hand-over (SIGTERM drains, closes resumably, hands the lead over).
    const c = cluster.start("gamma", discord);
    await c.standingBy();
    b.child.kill("SIGTERM");
    await exitOf(b.child);
    fake.dm(alice, "during the hand-over");
    await c.leading();
    await answered("during the hand-over");
    expect(fake.gateway.resumes).toBe(2);

    for (const said of ["before the crash", "during the takeover", "after the takeover", "during the hand-over"]) expect(answers(said), said).toHaveLength(1);
  });
});

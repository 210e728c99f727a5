// End to end: the real Baton core with the demo agent, the Matrix adapter on a bot device with Rust
// crypto, and a second real matrix-js-sdk client playing the user in an encrypted DM.
import { afterEach, beforeEach, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as sdk from "matrix-js-sdk";
import { FakeHomeserver } from "../fakes/matrix/server.js";
import { createRoom } from "../fakes/matrix/rooms.js";
import { MatrixAdapter } from "../../src/platforms/matrix/index.js";
import { matrixConfigSchema } from "../../src/platforms/matrix/config.js";
import { ALLOWED_TEST_USERS, startTestBaton, type TestBaton } from "../support/harness.js";
import { createEncryptedDm, startSdkUser, waitForMember, type SdkUser } from "./sdk-user.js";

const E2E_TIMEOUT_MS = 25_000;
let fake: FakeHomeserver;
let dataDir: string;
let baton: TestBaton | undefined;
let alice: SdkUser | undefined;
let password: string;

beforeEach(async () => {
  fake = await FakeHomeserver.start();
  dataDir = mkdtempSync(join(tmpdir(), "baton-matrix-e2e-"));
  ({ password } = fake.register("baton", undefined, "Baton"));
});
afterEach(async () => {
  await alice?.stop();
  alice = undefined;
  await baton?.stop();
  baton = undefined;
  await fake.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function startBaton(): Promise<MatrixAdapter> {
  const config = matrixConfigSchema.parse({ homeserver: fake.baseUrl, user_id: `@baton:${fake.serverName}`, password });
  const adapter = new MatrixAdapter("matrix", config, { dataDir, cacheDir: join(dataDir, "cache") });
  baton = await startTestBaton({ adapters: [adapter], dataDir, config: { access: { allow: [...ALLOWED_TEST_USERS, `matrix:@alice:${fake.serverName}`] } } });
  return adapter;
}

/** The bot's latest text for a message in the room, following edits, once it matches. */
function botText(user: SdkUser, roomId: string, pattern: RegExp): Promise<string> {
  const deadline = Date.now() + E2E_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const check = () => {
      const events = user.client.getRoom(roomId)?.getLiveTimeline().getEvents() ?? [];
      for (const event of events as sdk.MatrixEvent[]) {
        if (event.getSender() !== `@baton:${fake.serverName}` || event.getType() !== "m.room.message") continue;
        const content = event.getContent();
        const text = content["m.new_content"]?.body ?? content.body;
        if (typeof text === "string" && pattern.test(text)) return resolve(text);
      }
      if (Date.now() > deadline) return reject(new Error(`no bot message matching ${pattern}`));
      setTimeout(check, 50);
    };
    check();
  });
}

it("E2EE through Baton: an encrypted DM is answered by the demo agent, encrypted, and again after a restart with the same device", async () => {
  let adapter = await startBaton();
  const device = adapter.connection.session.device_id;
  alice = await startSdkUser(fake, fake.register("alice").userId);
  const roomId = await createEncryptedDm(alice, `@baton:${fake.serverName}`);
  await waitForMember(alice, roomId, `@baton:${fake.serverName}`);

  await alice.client.sendTextMessage(roomId, "hello there");
  expect(await botText(alice, roomId, /you said "hello there"/)).toMatch(/^Turn 1 of session/);
  const botSends = fake.callsTo(/\/rooms\/.*\/send\/.*/, "PUT").filter((c) => c.userId === `@baton:${fake.serverName}`);
  expect(botSends.length).toBeGreaterThan(0);
  expect(botSends.every((c) => c.path.includes("/send/m.room.encrypted/"))).toBe(true);
  // A long turn streams by m.replace edits, decrypted by Alice (step 3 only ever arrives in an edit).
  await alice.client.sendTextMessage(roomId, "demo:slow");
  await botText(alice, roomId, /Working… step 3/);
  const edits = (alice.client.getRoom(roomId)!.getLiveTimeline().getEvents() as sdk.MatrixEvent[]).filter((e) => e.getContent()["m.relates_to"]?.rel_type === "m.replace");
  expect(edits.length).toBeGreaterThan(0);
  await alice.client.sendTextMessage(roomId, "/stop");

  await baton!.stop();
  baton = undefined;
  adapter = await startBaton();
  expect(adapter.connection.session.device_id).toBe(device);
  await alice.client.sendTextMessage(roomId, "still there?");
  expect(await botText(alice, roomId, /you said "still there\?"/)).toBeTruthy();
}, 120_000);

it("an invite from a stranger is declined; one from an allowed user is joined", async () => {
  await startBaton();
  const mallory = fake.register("mallory").userId;
  const room = createRoom(fake.state, mallory, { invite: [`@baton:${fake.serverName}`] });
  const allowed = createRoom(fake.state, fake.register("alice").userId, { invite: [`@baton:${fake.serverName}`] });
  const deadline = Date.now() + E2E_TIMEOUT_MS;
  while (fake.state.membership(room, `@baton:${fake.serverName}`) !== "leave" || fake.state.membership(allowed, `@baton:${fake.serverName}`) !== "join") {
    if (Date.now() > deadline) throw new Error("the invites were not answered");
    await new Promise((r) => setTimeout(r, 50));
  }
});

// The bot's Matrix connection (login, sync, crypto in the data dir) on the fake homeserver, joining
// the rooms it is invited to as the adapter would: for tests of the encryption beneath the adapter.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as sdk from "matrix-js-sdk";
import { afterEach, beforeEach } from "vitest";
import { MatrixConnection, type ConnectionLog } from "../../../src/platforms/matrix/client.js";
import { matrixConfigSchema } from "../../../src/platforms/matrix/config.js";
import { FakeHomeserver } from "../../fakes/matrix/server.js";

/**
 * Each test's fake homeserver and data dir, and what it started (`stoppers`: stopped last first),
 * all gone after the test.
 */
export function e2eeTestBed() {
  const bed = {
    fake: undefined as unknown as FakeHomeserver,
    dataDir: "",
    stoppers: [] as Array<() => Promise<void>>,
  };
  beforeEach(async () => {
    bed.fake = await FakeHomeserver.start();
    bed.dataDir = mkdtempSync(join(tmpdir(), "baton-matrix-"));
  });
  afterEach(async () => {
    for (const stop of bed.stoppers.splice(0).reverse()) await stop();
    await bed.fake.stop();
    rmSync(bed.dataDir, { recursive: true, force: true });
  });
  return bed;
}

export async function startBotConnection(fake: FakeHomeserver, dataDir: string, password: string, log: ConnectionLog): Promise<MatrixConnection> {
  const config = matrixConfigSchema.parse({ homeserver: fake.baseUrl, user_id: `@baton:${fake.serverName}`, password });
  const bot = new MatrixConnection(config, { instance: "matrix", dataDir });
  await bot.start(log);
  bot.client.on(sdk.RoomMemberEvent.Membership, (_e, member) => {
    if (member.userId === bot.session.user_id && member.membership === "invite") void bot.client.joinRoom(member.roomId);
  });
  return bot;
}

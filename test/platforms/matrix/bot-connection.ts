// The bot's Matrix connection (login, sync, crypto in the data dir) on the fake homeserver, joining
// the rooms it is invited to as the adapter would: for tests of the encryption beneath the adapter.
import * as sdk from "matrix-js-sdk";
import { MatrixConnection, type ConnectionLog } from "../../../src/platforms/matrix/client.js";
import { matrixConfigSchema } from "../../../src/platforms/matrix/config.js";
import type { FakeHomeserver } from "../../fakes/matrix/server.js";

export async function startBotConnection(fake: FakeHomeserver, dataDir: string, password: string, log: ConnectionLog): Promise<MatrixConnection> {
  const config = matrixConfigSchema.parse({ homeserver: fake.baseUrl, user_id: `@baton:${fake.serverName}`, password });
  const bot = new MatrixConnection(config, { instance: "matrix", dataDir });
  await bot.start(log);
  bot.client.on(sdk.RoomMemberEvent.Membership, (_e, member) => {
    if (member.userId === bot.session.user_id && member.membership === "invite") void bot.client.joinRoom(member.roomId);
  });
  return bot;
}

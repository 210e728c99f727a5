// The bot's device keeps its keys across a restart: its crypto store lives in the data dir.
import { expect, it } from "vitest";
import { cpSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import * as sdk from "matrix-js-sdk";
import type { MatrixConnection } from "../../../src/platforms/matrix/client.js";
import { e2eeTestBed, startBotConnection } from "./bot-connection.js";
import { createEncryptedDm, nextMessage, startSdkUser, waitForMember, type SdkUser } from "./sdk-user.js";

const bed = e2eeTestBed();
const warnings: string[] = [];
const log = { info: () => undefined, debug: () => undefined, warn: (m: string) => void warnings.push(m) };

async function startBot(password: string): Promise<MatrixConnection> {
  const bot = await startBotConnection(bed.fake, bed.dataDir, password, log);
  bed.stoppers.push(() => bot.stop());
  // What the adapter will do, reduced: answer every decrypted message.
  const answer = (event: sdk.MatrixEvent) => {
    if (event.getSender() === bot.session.user_id || event.isBeingDecrypted() || event.getType() !== "m.room.message") return;
    void bot.client.sendTextMessage(event.getRoomId()!, `echo: ${event.getContent().body}`);
  };
  bot.client.on(sdk.RoomEvent.Timeline, (event, _room, toStart) => !toStart && answer(event));
  bot.client.on(sdk.MatrixEventEvent.Decrypted, answer);
  return bot;
}

async function roundTrip(alice: SdkUser, roomId: string, text: string): Promise<sdk.MatrixEvent> {
  const reply = nextMessage(alice, roomId, (c) => c.body === `echo: ${text}`);
  await alice.client.sendTextMessage(roomId, text);
  return reply;
}

it("answers in an encrypted DM, and again after a restart with the same device and keys", async () => {
  const { password } = bed.fake.register("baton");
  const alice = await startSdkUser(bed.fake, bed.fake.register("alice").userId);
  bed.stoppers.push(() => alice.stop());

  let bot = await startBot(password);
  const device = bot.session.device_id;
  const keys = await bot.deviceKeys();
  const roomId = await createEncryptedDm(alice, bot.session.user_id);
  await waitForMember(alice, roomId, bot.session.user_id);
  const first = await roundTrip(alice, roomId, "one");
  expect(first.isEncrypted()).toBe(true);
  // The documented verification: Element's `/verify <user> <device> <ed25519 key>` compares the key
  // Baton's doctor prints with the one the homeserver handed out, then trusts the device.
  const crypto = alice.client.getCrypto()!;
  const seen = (await crypto.getUserDeviceInfo([bot.session.user_id])).get(bot.session.user_id)!.get(device)!;
  expect(seen.getFingerprint()).toBe(keys.ed25519);
  await crypto.setDeviceVerified(bot.session.user_id, device, true);

  await bot.stop();
  bed.stoppers.length = 1; // alice only
  // The login and the crypto store are private files in a private directory.
  const instanceDir = join(bed.dataDir, "matrix", "matrix");
  expect(statSync(instanceDir).mode & 0o777).toBe(0o700);
  expect(statSync(join(instanceDir, "session.json")).mode & 0o777).toBe(0o600);
  const cryptoDir = join(instanceDir, `crypto-${device}`);
  expect(statSync(cryptoDir).mode & 0o777).toBe(0o700);
  for (const file of readdirSync(cryptoDir)) expect(statSync(join(cryptoDir, file)).mode & 0o777).toBe(0o600);

  bot = await startBot(password);
  expect(bot.session.device_id).toBe(device);
  expect(await bot.deviceKeys()).toEqual(keys);
  expect((await crypto.getDeviceVerificationStatus(bot.session.user_id, device))?.isVerified()).toBe(true);
  // Same megolm session as before the restart: the bot needs its stored room key.
  expect((await roundTrip(alice, roomId, "two")).isEncrypted()).toBe(true);
  // A new room key, sent over Olm to the bot's device: the bot needs its stored identity keys.
  alice.client.getCrypto()!.forceDiscardSession(roomId);
  expect((await roundTrip(alice, roomId, "three")).getContent().body).toBe("echo: three");
  // One password login only; the device's keys were uploaded once.
  expect(bed.fake.callsTo(/\/login$/, "POST")).toHaveLength(1);
  expect(warnings).toEqual([]);
  expect(bed.fake.callsTo(/\/keys\/upload$/).filter((c) => c.userId === bot.session.user_id && c.body?.device_keys)).toHaveLength(1);
});

it("after a crash (no clean stop) the journal alone still has the device's keys and room keys", async () => {
  const { password } = bed.fake.register("baton");
  const alice = await startSdkUser(bed.fake, bed.fake.register("alice").userId);
  bed.stoppers.push(() => alice.stop());
  let bot = await startBot(password);
  const keys = await bot.deviceKeys();
  const roomId = await createEncryptedDm(alice, bot.session.user_id);
  await waitForMember(alice, roomId, bot.session.user_id);
  await roundTrip(alice, roomId, "before the crash");
  // The crypto store's files as the crash left them: no compaction at stop.
  const cryptoDir = join(bed.dataDir, "matrix", "matrix", `crypto-${bot.session.device_id}`);
  cpSync(cryptoDir, `${cryptoDir}.crashed`, { recursive: true });
  await bot.stop();
  bed.stoppers.length = 1;
  rmSync(cryptoDir, { recursive: true });
  cpSync(`${cryptoDir}.crashed`, cryptoDir, { recursive: true });
  rmSync(`${cryptoDir}.crashed`, { recursive: true });

  bot = await startBot(password);
  expect(await bot.deviceKeys()).toEqual(keys);
  expect((await roundTrip(alice, roomId, "after the crash")).isEncrypted()).toBe(true);
});

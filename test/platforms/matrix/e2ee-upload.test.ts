// A file from the agent into an encrypted room: the bot encrypts it before upload (the homeserver
// holds only ciphertext), the event (itself encrypted) carries the key, and a member decrypts the
// very bytes, hash checked, with the same reader Baton uses for members' files.
import { expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { e2eeTestBed, startBotConnection } from "./bot-connection.js";
import { attachmentOf, matrixFile } from "../../../src/platforms/matrix/media.js";
import { uploadMedia } from "../../../src/platforms/matrix/uploads.js";
import { createEncryptedDm, nextMessage, startSdkUser, waitForMember } from "./sdk-user.js";

const bed = e2eeTestBed();
const log = { info: () => undefined, debug: () => undefined, warn: () => undefined };

it("encrypts an uploaded file in an encrypted room; a member decrypts the same bytes", async () => {
  const { password } = bed.fake.register("baton");
  const alice = await startSdkUser(bed.fake, bed.fake.register("alice").userId);
  bed.stoppers.push(() => alice.stop());
  const bot = await startBotConnection(bed.fake, bed.dataDir, password, log);
  bed.stoppers.push(() => bot.stop());
  const roomId = await createEncryptedDm(alice, bot.session.user_id);
  await waitForMember(alice, roomId, bot.session.user_id);
  // The bot learns the room is encrypted from its sync, as it would before answering.
  for (let i = 0; !(await bot.client.getCrypto()!.isEncryptionEnabledInRoom(roomId)); i++) {
    if (i > 500) throw new Error("the bot never saw the room's encryption");
    await new Promise((r) => setTimeout(r, 20));
  }

  const secret = "the agent's report: nothing here for the homeserver\n";
  const path = join(bed.dataDir, "report.txt");
  writeFileSync(path, secret);
  const media = await uploadMedia(bot.client, { name: "report.txt", mimeType: "text/plain", path, size: secret.length }, true);
  const arrived = nextMessage(alice, roomId, (c) => c.msgtype === "m.file");
  await bot.client.sendEvent(roomId, "m.room.message" as never, { body: "report.txt", ...media } as never);
  const event = await arrived;
  expect(event.isEncrypted()).toBe(true);
  const attachment = attachmentOf(event.getContent())!;
  expect(attachment).toMatchObject({ name: "report.txt", mimeType: "text/plain", size: secret.length });
  expect(attachment.encryption?.v).toBe("v2");
  // The homeserver holds ciphertext only.
  const stored = [...bed.fake.state.media.values()].at(-1)!;
  expect(stored.content.toString()).not.toContain("nothing here");
  const chunks: Buffer[] = [];
  const file = matrixFile(attachment, { homeserver: bed.fake.baseUrl, accessToken: alice.client.getAccessToken()! });
  for await (const chunk of await file.fetch(AbortSignal.timeout(10_000))) chunks.push(Buffer.from(chunk));
  expect(Buffer.concat(chunks).toString()).toBe(secret);
});

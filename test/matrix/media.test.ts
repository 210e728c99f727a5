import { afterEach, beforeEach, expect, it } from "vitest";
import { createCipheriv, createHash, randomBytes } from "node:crypto";
import { FakeHomeserver } from "../fakes/matrix/server.js";
import { attachmentOf, downloadAttachment, type EncryptedFile } from "../../src/platforms/matrix/media.js";

let fake: FakeHomeserver;
let access: { homeserver: string; accessToken: string };
beforeEach(async () => {
  fake = await FakeHomeserver.start();
  const { userId } = fake.register("baton");
  access = { homeserver: fake.baseUrl, accessToken: fake.login(userId).accessToken };
});
afterEach(() => fake.stop());

/** What Element does for a file in an encrypted room (the spec's EncryptedFile). */
function encryptForRoom(plain: Buffer): { ciphertext: Buffer; file: Omit<EncryptedFile, "url"> } {
  const key = randomBytes(32);
  const iv = Buffer.concat([randomBytes(8), Buffer.alloc(8)]);
  const cipher = createCipheriv("aes-256-ctr", key, iv);
  const ciphertext = Buffer.concat([cipher.update(plain), cipher.final()]);
  return {
    ciphertext,
    file: {
      key: { kty: "oct", alg: "A256CTR", k: key.toString("base64url") },
      iv: iv.toString("base64").replace(/=+$/, ""),
      hashes: { sha256: createHash("sha256").update(ciphertext).digest("base64").replace(/=+$/, "") },
      v: "v2",
    },
  };
}

it("downloads a clear file through the authenticated media API", async () => {
  const url = fake.upload(Buffer.from("hello file"), "text/plain");
  const attachment = attachmentOf({ msgtype: "m.file", body: "notes.txt", url, info: { mimetype: "text/plain", size: 10 } })!;
  expect(attachment).toMatchObject({ name: "notes.txt", mimeType: "text/plain", size: 10 });
  expect((await downloadAttachment(attachment, access, 1024)).toString()).toBe("hello file");
  const call = fake.callsTo(/\/media\/download\//)[0];
  expect(call.path).toMatch(/^\/_matrix\/client\/v1\/media\/download\/fake\.test\//);
  expect(call.userId).toBe("@baton:fake.test");
});

it("decrypts an encrypted file after checking its hash; a tampered one is refused", async () => {
  const plain = randomBytes(5000);
  const { ciphertext, file } = encryptForRoom(plain);
  const url = fake.upload(ciphertext);
  const content = { msgtype: "m.image", body: "photo.png", info: { mimetype: "image/png", size: plain.length }, file: { ...file, url } };
  expect(await downloadAttachment(attachmentOf(content)!, access, 1 << 20)).toEqual(plain);

  const tampered = Buffer.from(ciphertext);
  tampered[0] ^= 1;
  const bad = { ...content, file: { ...file, url: fake.upload(tampered) } };
  await expect(downloadAttachment(attachmentOf(bad)!, access, 1 << 20)).rejects.toThrow(/does not match its hash/);
});

it("refuses a file over the limit, even when its declared size lies", async () => {
  const url = fake.upload(randomBytes(4096));
  await expect(downloadAttachment(attachmentOf({ msgtype: "m.file", body: "big", url, info: { size: 4096 } })!, access, 1000)).rejects.toThrow(/larger than/);
  await expect(downloadAttachment(attachmentOf({ msgtype: "m.file", body: "liar", url, info: { size: 10 } })!, access, 1000)).rejects.toThrow(/larger than/);
});

it("text messages have no attachment", () => {
  expect(attachmentOf({ msgtype: "m.text", body: "hi" })).toBeUndefined();
});

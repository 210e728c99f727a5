import { afterEach, beforeEach, expect, it } from "vitest";
import { createCipheriv, createHash, randomBytes } from "node:crypto";
import { FakeHomeserver } from "../../fakes/matrix/server.js";
import { PlatformError } from "../../../src/kernel/errors.js";
import { attachmentOf, matrixFile, type EncryptedFile, type MatrixAttachment } from "../../../src/platforms/matrix/media.js";

let fake: FakeHomeserver;
let access: { homeserver: string; accessToken: string };
beforeEach(async () => {
  fake = await FakeHomeserver.start();
  const { userId } = fake.register("baton");
  access = { homeserver: fake.baseUrl, accessToken: fake.login(userId).accessToken };
});
afterEach(() => fake.stop());

/** What the core does with the descriptor: read it to the end. */
async function download(attachment: MatrixAttachment): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of await matrixFile(attachment, access).fetch(AbortSignal.timeout(5000))) chunks.push(chunk);
  return Buffer.concat(chunks);
}

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
  expect((await download(attachment)).toString()).toBe("hello file");
  const call = fake.callsTo(/\/media\/download\//)[0];
  expect(call.path).toMatch(/^\/_matrix\/client\/v1\/media\/download\/fake\.test\//);
  expect(call.userId).toBe("@baton:fake.test");
});

it("decrypts an encrypted file after checking its hash; a tampered one is refused", async () => {
  const plain = randomBytes(5000);
  const { ciphertext, file } = encryptForRoom(plain);
  const url = fake.upload(ciphertext);
  const content = { msgtype: "m.image", body: "photo.png", info: { mimetype: "image/png", size: plain.length }, file: { ...file, url } };
  expect(await download(attachmentOf(content)!)).toEqual(plain);

  const tampered = Buffer.from(ciphertext);
  tampered[0] ^= 1;
  const bad = { ...content, file: { ...file, url: fake.upload(tampered) } };
  await expect(download(attachmentOf(bad)!)).rejects.toThrow(/does not match its hash/);
});

it("a file the homeserver does not have, or will not give, is a typed refusal; a bad key is refused before downloading", async () => {
  const missing = attachmentOf({ msgtype: "m.file", body: "gone.txt", url: "mxc://fake.test/nosuchmedia" })!;
  await expect(download(missing)).rejects.toMatchObject({ reason: "refused" });
  const badKey = attachmentOf({ msgtype: "m.file", body: "x", file: { url: fake.upload(Buffer.from("x")), key: { k: "short" }, iv: "AAAAAAAAAAAAAAAAAAAAAA", hashes: { sha256: "x" } } })!;
  const before = fake.callsTo(/\/media\/download\//).length;
  await expect(download(badKey)).rejects.toBeInstanceOf(PlatformError);
  expect(fake.callsTo(/\/media\/download\//).length).toBe(before);
});

it("text messages have no attachment", () => {
  expect(attachmentOf({ msgtype: "m.text", body: "hi" })).toBeUndefined();
});

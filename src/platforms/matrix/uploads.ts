// Files into a Matrix room: the bytes go to the media repository (`POST /_matrix/media/v3/upload`),
// then one `m.image` / `m.audio` / `m.video` / `m.file` event names them, the caption as its body
// (and HTML). In an encrypted room the file is encrypted first, as the spec's EncryptedFile says:
// AES-256-CTR with a fresh key and IV, the SHA-256 of the ciphertext, the key as a JWK in the
// (encrypted) event; the homeserver only ever holds ciphertext.
import { createCipheriv, createHash, randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { MatrixClient } from "matrix-js-sdk";
import type { OutboundFile } from "../contract.js";
import type { EncryptedFile } from "./media.js";

const AES_KEY_BYTES = 32;
/** The IV's high 64 bits are random, the low 64 (the block counter) start at zero. */
const IV_RANDOM_BYTES = 8;

/** Uploads the file's bytes (encrypted when asked) and returns what the event's content needs. */
export async function uploadMedia(client: MatrixClient, file: OutboundFile, encrypt: boolean): Promise<Record<string, unknown>> {
  const data = await readFile(file.path);
  const msgtype = file.mimeType.startsWith("image/") ? "m.image" : file.mimeType.startsWith("audio/") ? "m.audio" : file.mimeType.startsWith("video/") ? "m.video" : "m.file";
  const info = { mimetype: file.mimeType, size: file.size };
  if (!encrypt) {
    const { content_uri } = await client.uploadContent(data, { type: file.mimeType, name: file.name });
    return { msgtype, filename: file.name, url: content_uri, info };
  }
  const key = randomBytes(AES_KEY_BYTES);
  const iv = Buffer.concat([randomBytes(IV_RANDOM_BYTES), Buffer.alloc(16 - IV_RANDOM_BYTES)]);
  const cipher = createCipheriv("aes-256-ctr", key, iv);
  const ciphertext = Buffer.concat([cipher.update(data), cipher.final()]);
  const { content_uri } = await client.uploadContent(ciphertext, { type: "application/octet-stream", name: file.name });
  const encrypted: EncryptedFile & Record<string, unknown> = {
    url: content_uri,
    key: { kty: "oct", key_ops: ["encrypt", "decrypt"], alg: "A256CTR", k: key.toString("base64url"), ext: true } as EncryptedFile["key"],
    iv: unpadded(iv.toString("base64")),
    hashes: { sha256: unpadded(createHash("sha256").update(ciphertext).digest("base64")) },
    v: "v2",
  };
  return { msgtype, filename: file.name, file: encrypted, info };
}

function unpadded(base64: string): string {
  return base64.replace(/=+$/, "");
}

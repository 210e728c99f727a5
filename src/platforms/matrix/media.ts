// Files users send: `m.file` / `m.image` / `m.audio` / `m.video` events carry either `url` (an
// mxc:// URI, clear) or `file` (an EncryptedFile: mxc URI + AES-256-CTR key, IV and SHA-256 of the
// ciphertext) in encrypted rooms. Downloaded through the authenticated media API
// (`/_matrix/client/v1/media/download/{server}/{media id}`), size-capped while streaming, the hash
// checked before anything is decrypted.
import { createDecipheriv, createHash } from "node:crypto";
import { PlatformError } from "../../kernel/errors.js";

const DOWNLOAD_TIMEOUT_MS = 60_000;
const FILE_MSGTYPES = new Set(["m.file", "m.image", "m.audio", "m.video"]);

export interface EncryptedFile {
  url: string;
  key: { k: string; alg?: string; kty?: string };
  iv: string;
  hashes: { sha256: string };
  v?: string;
}

export interface MatrixAttachment {
  name: string;
  mimeType?: string;
  size?: number;
  url: string;
  encryption?: EncryptedFile;
}

export interface MediaAccess {
  homeserver: string;
  accessToken: string;
}

/** The attachment of a message event's content, or undefined when it carries none. */
export function attachmentOf(content: Record<string, any>): MatrixAttachment | undefined {
  if (!FILE_MSGTYPES.has(content.msgtype)) return undefined;
  const encryption = content.file as EncryptedFile | undefined;
  const url = encryption?.url ?? content.url;
  if (typeof url !== "string" || !url.startsWith("mxc://")) return undefined;
  const name = typeof content.filename === "string" && content.filename ? content.filename : typeof content.body === "string" && content.body ? content.body : "file";
  return { name, mimeType: content.info?.mimetype, size: content.info?.size, url, encryption };
}

/** Downloads (and decrypts) an attachment; refuses past `maxBytes` without reading further. */
export async function downloadAttachment(attachment: MatrixAttachment, access: MediaAccess, maxBytes: number): Promise<Buffer> {
  if (attachment.size !== undefined && attachment.size > maxBytes) throw tooLarge(attachment, maxBytes);
  const match = /^mxc:\/\/([^/]+)\/([^/?#]+)$/.exec(attachment.url);
  if (!match) throw new PlatformError(`The file ${attachment.name} has an invalid address.`, { reason: "refused" });
  const url = new URL(`/_matrix/client/v1/media/download/${encodeURIComponent(match[1])}/${encodeURIComponent(match[2])}`, access.homeserver.replace(/\/*$/, "/"));
  let response: Response;
  try {
    response = await fetch(url, { headers: { authorization: `Bearer ${access.accessToken}` }, signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
  } catch (error) {
    throw new PlatformError(`The file ${attachment.name} could not be downloaded.`, { reason: "network", detail: (error as Error).message, cause: error });
  }
  if (!response.ok || !response.body) {
    const answer = (await response.json().catch(() => ({}))) as { errcode?: string; retry_after_ms?: number };
    const reason = response.status === 429 ? "rate_limited" : response.status >= 500 ? "unavailable" : "refused";
    throw new PlatformError(`The homeserver refused the file ${attachment.name} (${response.status} ${answer.errcode ?? ""}).`.replace(" )", ")"), { reason: reason as "refused", retryAfterMs: answer.retry_after_ms });
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    total += chunk.length;
    if (total > maxBytes) {
      await response.body.cancel().catch(() => undefined);
      throw tooLarge(attachment, maxBytes);
    }
    chunks.push(Buffer.from(chunk));
  }
  const data = Buffer.concat(chunks);
  return attachment.encryption ? decryptAttachment(data, attachment.encryption, attachment.name) : data;
}

/** AES-256-CTR with the event's key and IV, after checking the ciphertext's SHA-256. */
export function decryptAttachment(ciphertext: Buffer, file: EncryptedFile, name = "file"): Buffer {
  const expected = unpaddedBase64(file.hashes?.sha256 ?? "");
  const actual = createHash("sha256").update(ciphertext).digest("base64").replace(/=+$/, "");
  if (!expected || expected !== actual) throw new PlatformError(`The encrypted file ${name} does not match its hash; it was not decrypted.`, { reason: "refused" });
  const key = Buffer.from(file.key.k, "base64url");
  const iv = Buffer.from(file.iv, "base64");
  if (key.length !== 32 || iv.length !== 16) throw new PlatformError(`The encrypted file ${name} has an invalid key.`, { reason: "refused" });
  const decipher = createDecipheriv("aes-256-ctr", key, iv);
  return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
}

function unpaddedBase64(text: string): string {
  return text.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
}

function tooLarge(attachment: MatrixAttachment, maxBytes: number): PlatformError {
  return new PlatformError(`The file ${attachment.name} is larger than the ${Math.round(maxBytes / 1024 / 1024)} MB limit.`, { reason: "refused" });
}

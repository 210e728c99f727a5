// Files users send: `m.file` / `m.image` / `m.audio` / `m.video` events carry either `url` (an
// mxc:// URI, clear) or `file` (an EncryptedFile: mxc URI + AES-256-CTR key, IV and SHA-256 of the
// ciphertext) in encrypted rooms. Each becomes a descriptor the core fetches only for an allowed
// user: downloaded then through the authenticated media API
// (`/_matrix/client/v1/media/download/{server}/{media id}`), streamed (the core caps the size as
// the bytes come), decrypted as they come when encrypted. The ciphertext's hash can only be checked
// at the end: a mismatch fails the fetch, and the core then deletes what it wrote, so a tampered
// file never reaches the agent.
import { createDecipheriv, createHash } from "node:crypto";
import { PlatformError } from "../../kernel/errors.js";
import type { InboundFile } from "../contract.js";
import { httpPlatformError, networkPlatformError } from "../kit/errors.js";

const FILE_MSGTYPES = new Set(["m.file", "m.image", "m.audio", "m.video"]);
const AES_KEY_BYTES = 32;
const AES_IV_BYTES = 16;

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
  const size = typeof content.info?.size === "number" ? content.info.size : undefined;
  return { name, mimeType: content.info?.mimetype, size, url, encryption };
}

/** The attachment as a file the core may fetch. */
export function matrixFile(attachment: MatrixAttachment, access: MediaAccess): InboundFile {
  return { name: attachment.name, mimeType: attachment.mimeType, size: attachment.size, fetch: (signal) => download(attachment, access, signal) };
}

async function download(attachment: MatrixAttachment, access: MediaAccess, signal: AbortSignal): Promise<AsyncIterable<Uint8Array>> {
  const match = /^mxc:\/\/([^/]+)\/([^/?#]+)$/.exec(attachment.url);
  if (!match) throw new PlatformError(`The file ${attachment.name} has an invalid address.`, { reason: "refused", detail: `bad mxc URI ${attachment.url}` });
  const decipher = attachment.encryption ? decipherOf(attachment.encryption, attachment.name) : undefined;
  const url = new URL(`/_matrix/client/v1/media/download/${encodeURIComponent(match[1])}/${encodeURIComponent(match[2])}`, access.homeserver.replace(/\/*$/, "/"));
  let response: Response;
  try {
    response = await fetch(url, { headers: { authorization: `Bearer ${access.accessToken}` }, signal });
  } catch (error) {
    throw networkPlatformError("Matrix", "download a file", (error as Error).message);
  }
  if (!response.ok || !response.body) {
    const answer = (await response.json().catch(() => ({}))) as { errcode?: string; error?: string; retry_after_ms?: number };
    throw httpPlatformError("Matrix", "download a file", { status: response.status, description: `${answer.errcode ?? ""} ${answer.error ?? ""}`.trim(), retryAfterMs: answer.retry_after_ms });
  }
  const body = response.body as unknown as AsyncIterable<Uint8Array>;
  return decipher ? decrypting(body, decipher, attachment.encryption!, attachment.name) : body;
}

function decipherOf(file: EncryptedFile, name: string) {
  const key = Buffer.from(file.key?.k ?? "", "base64url");
  const iv = Buffer.from(file.iv ?? "", "base64");
  if (key.length !== AES_KEY_BYTES || iv.length !== AES_IV_BYTES || !file.hashes?.sha256) {
    throw new PlatformError(`The encrypted file ${name} has an invalid key.`, { reason: "refused" });
  }
  return createDecipheriv("aes-256-ctr", key, iv);
}

/** AES-256-CTR with the event's key and IV, hashing the ciphertext on the way; fails at the end on a mismatch. */
async function* decrypting(ciphertext: AsyncIterable<Uint8Array>, decipher: ReturnType<typeof createDecipheriv>, file: EncryptedFile, name: string): AsyncIterable<Uint8Array> {
  const hash = createHash("sha256");
  for await (const chunk of ciphertext) {
    hash.update(chunk);
    yield decipher.update(chunk);
  }
  const last = decipher.final();
  if (unpaddedBase64(hash.digest("base64")) !== unpaddedBase64(file.hashes.sha256)) {
    throw new PlatformError(`The encrypted file ${name} does not match its hash; it was not kept.`, { reason: "refused" });
  }
  if (last.length > 0) yield last;
}

/** Matrix writes unpadded base64, some clients the URL-safe alphabet. */
function unpaddedBase64(text: string): string {
  return text.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
}

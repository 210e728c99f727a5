// Random ids for hot paths: an event id for every event logged (several per turn), an id for
// every turn. randomBytes() is a round trip into OpenSSL per call, tens of microseconds each under
// load; these draw from a pool of random bytes filled 4 KB at a time (still the OS's CSPRNG).
import { randomFillSync } from "node:crypto";

const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let used = POOL_BYTES;

function take(bytes: number): number {
  if (bytes > POOL_BYTES) throw new RangeError(`at most ${POOL_BYTES} random bytes at a time`);
  if (used + bytes > POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  const at = used;
  used += bytes;
  return at;
}

/** `bytes` random bytes as hex. */
export function randomHex(bytes: number): string {
  const at = take(bytes);
  return pool.toString("hex", at, at + bytes);
}

/** `bytes` random bytes as base64url. */
export function randomBase64url(bytes: number): string {
  const at = take(bytes);
  return pool.toString("base64url", at, at + bytes);
}

// Pickup codes: 4 characters from an alphabet without look-alikes (no 0/O, 1/I), drawn from the
// OS CSPRNG, valid for a short TTL and consumable exactly once. The code carries only pointers
// (agent, session, cwd); the conversation itself stays in the agent's own session store.
import { randomInt } from "node:crypto";
import type { Keyv } from "keyv";
import { forgetSecretValues, registerSecretValues } from "../kernel/secrets.js";

export const CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
const CODE_LENGTH = 4;
const DEFAULT_CODE_TTL_MS = 120_000;
/** Issuing retries this often when a fresh code collides with a live one (1 in 2^20 per try). */
const ISSUE_ATTEMPTS = 8;

export interface Clock {
  now(): number;
}

function systemClock(): Clock {
  return { now: () => Date.now() };
}

/** What a code points at: enough to re-bind a chat to the same agent session. */
export interface HandoverPayload {
  agent: string;
  profile?: string;
  session: string;
  cwd: string;
  /** The `baton launch` run that asked for the code, if any. */
  launchId?: string;
}

interface StoredCode extends HandoverPayload {
  expiresAt: number;
}

export function generateCode(): string {
  let code = "";
  for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

/** Upper-cases and trims what a person typed; undefined when it cannot be a code at all. */
export function normalizeCode(input: string): string | undefined {
  const code = input.trim().toUpperCase();
  if (code.length !== CODE_LENGTH) return undefined;
  for (const ch of code) if (!CODE_ALPHABET.includes(ch)) return undefined;
  return code;
}

export class PickupCodes {
  constructor(
    private readonly store: Keyv,
    private readonly ttlMs: number = DEFAULT_CODE_TTL_MS,
    /** Each store gets its own clock object, so a test can move one without touching others. */
    readonly clock: Clock = systemClock(),
  ) {}

  async issue(payload: HandoverPayload): Promise<{ code: string; expiresAt: number }> {
    for (let attempt = 0; attempt < ISSUE_ATTEMPTS; attempt++) {
      const code = generateCode();
      // A live code is never overwritten: that would silently re-point someone else's handover.
      const existing = await this.store.get<StoredCode>(code);
      if (existing && existing.expiresAt > this.clock.now()) continue;
      const expiresAt = this.clock.now() + this.ttlMs;
      // The store's own TTL only purges; validity is decided by expiresAt against our clock.
      await this.store.set(code, { ...payload, expiresAt } satisfies StoredCode, this.ttlMs);
      // A live code is a secret Baton knows: no log line shows it until it has expired.
      registerSecretValues([code]);
      setTimeout(() => forgetSecretValues([code]), this.ttlMs).unref();
      return { code, expiresAt };
    }
    throw new Error("could not find a free pickup code; too many live codes");
  }

  /**
   * Removes the code and returns what it pointed at, or undefined when it is unknown, expired or
   * already used. Atomic: of two concurrent calls with one code, only the one whose delete removed
   * the entry wins (Map.delete in memory, DEL's count in Redis — both single operations).
   */
  async consume(input: string): Promise<HandoverPayload | undefined> {
    const code = normalizeCode(input);
    if (!code) return undefined;
    const stored = await this.store.get<StoredCode>(code);
    if (!stored) return undefined;
    const won = await this.store.delete(code);
    if (!won || stored.expiresAt <= this.clock.now()) return undefined;
    const { expiresAt: _expiresAt, ...payload } = stored;
    return payload;
  }
}

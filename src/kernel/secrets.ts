// Keeping secrets out of logs, chats and briefs, in two parts:
// - the values Baton *knows* are secret (tokens and passwords from the config, the codes and
//   bearer tokens it mints): kept in one registry and replaced exactly, wherever they appear,
//   Baton's own words included (the log does this to every line);
// - secret *shapes* (secret-shapes.ts), only for text that came from outside: agent output,
//   platform errors, transcripts in briefs. Baton's own words are never run through them, so a
//   log line such as "Telegram check the bot token: HTTP 401 Unauthorized" keeps every word.
import { REDACTED, redactSecretShapes } from "./secret-shapes.js";

/** Shorter values would redact ordinary words; they are also matched only as whole words. */
const MIN_KNOWN_SECRET_CHARS = 4;
/** Values this short (pickup codes) are replaced only where they stand alone, not inside a word. */
const WHOLE_WORD_BELOW_CHARS = 8;

/** Known secret values, each with how many holders registered it (a value two parts hold stays until both let go). */
const known = new Map<string, number>();
let knownPattern: RegExp | undefined;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** One alternation of every known value, longest first (a value inside a longer one loses to it). */
function pattern(): RegExp | undefined {
  if (known.size === 0) return undefined;
  knownPattern ??= new RegExp(
    [...known.keys()]
      .sort((a, b) => b.length - a.length)
      .map((v) => (v.length < WHOLE_WORD_BELOW_CHARS ? `(?<![A-Za-z0-9])${escapeRegExp(v)}(?![A-Za-z0-9])` : escapeRegExp(v)))
      .join("|"),
    "g",
  );
  return knownPattern;
}

/** Registers values Baton knows are secret (config tokens, minted codes and tokens): redacted wherever they appear. */
export function registerSecretValues(values: Iterable<string | undefined>): void {
  for (const value of values) {
    if (!value || value.length < MIN_KNOWN_SECRET_CHARS) continue;
    known.set(value, (known.get(value) ?? 0) + 1);
    knownPattern = undefined;
  }
}

/** Lets go of values registered before (an expired code, a revoked token), so the registry stays bounded. */
export function forgetSecretValues(values: Iterable<string | undefined>): void {
  for (const value of values) {
    const count = value ? known.get(value) : undefined;
    if (count === undefined) continue;
    if (count > 1) known.set(value!, count - 1);
    else known.delete(value!);
    knownPattern = undefined;
  }
}

/** How many distinct values are registered (tests check that minted ones are let go). */
export function knownSecretCount(): number {
  return known.size;
}

/** Text with every known secret value replaced by [REDACTED] and nothing else changed: for Baton's own words. */
export function redactKnownValues(text: string): string {
  const re = pattern();
  return re && text.length >= MIN_KNOWN_SECRET_CHARS ? text.replace(re, REDACTED) : text;
}

/** Text that came from outside Baton, with every known secret value and every secret shape redacted. */
export function redactSecrets(text: string): string {
  return redactSecretShapes(redactKnownValues(text));
}

/** Outside text with the given values (a token not registered yet) and every recognised secret redacted. */
export function redactKnownSecrets(text: string, secrets: ReadonlyArray<string | undefined>): string {
  let out = text;
  for (const secret of secrets) if (secret && secret.length >= MIN_KNOWN_SECRET_CHARS) out = out.split(secret).join(REDACTED);
  return redactSecrets(out);
}

/**
 * A URL as Baton shows it to people and logs: without its `user:password@` (`redis://:pw@host`
 * becomes `redis://host`). Text that is not a URL is returned unchanged.
 */
export function urlForDisplay(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]{0,30}:\/\/)[^/?#\s]*@/i, "$1");
}

/** The password (and user name, when it could be one) inside a URL, to register as known secrets. */
export function urlCredentials(url: string | undefined): string[] {
  const m = url ? /^[a-z][a-z0-9+.-]{0,30}:\/\/([^/?#\s]*)@/i.exec(url) : null;
  if (!m) return [];
  const [user, ...rest] = m[1].split(":");
  const password = rest.join(":");
  const values = [password, password ? undefined : user].filter((v): v is string => !!v);
  return [...new Set(values.flatMap((v) => [v, safeDecode(v)]))];
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

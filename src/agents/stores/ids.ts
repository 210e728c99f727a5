// How much of a session id a list shows. Eight characters tell most ids apart, but not Codex's
// UUIDv7 ids: their first characters are a timestamp, so sessions started within about a minute
// share them. A list shows as many characters as it takes to tell its ids apart.

/** The fewest characters of an id a list shows. */
export const SHORT_ID_CHARS = 8;

/** Characters to show of each id so that no two listed ids look the same (at least SHORT_ID_CHARS). */
export function shortIdLength(ids: Iterable<string>, min = SHORT_ID_CHARS): number {
  const unique = [...new Set(ids)];
  const longest = Math.max(min, ...unique.map((id) => id.length));
  for (let n = min; n < longest; n++) {
    if (new Set(unique.map((id) => id.slice(0, n))).size === unique.length) return n;
  }
  return longest;
}

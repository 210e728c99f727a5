// Session id shapes several products share (each product names its own in its descriptor).

/** The 8-4-4-4-12 shape of a UUID (letters allowed: some stores and tests write UUID-shaped names). */
export const UUID_ID = { pattern: /^[0-9A-Za-z]{8}-[0-9A-Za-z]{4}-[0-9A-Za-z]{4}-[0-9A-Za-z]{4}-[0-9A-Za-z]{12}$/, shape: "a UUID" };

/** A stored session's reference to reopen it by: its native reference when it has one, else its id. */
export function sessionRef(s: { id: string; native?: { ref?: string } }): string {
  return s.native?.ref ?? s.id;
}

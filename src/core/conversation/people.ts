// Who a person is, across their accounts: `access.people: { ana: [slack:U0ABC, telegram:123] }` makes
// both accounts one person, `ana`, so limits and the audit trail count her once. Anyone not listed
// is their own person, keyed by their platform-qualified id (`telegram:456`).
import type { BatonConfig } from "../../config/schema.js";

type People = BatonConfig["access"]["people"];

/** Per people table (a reload parses a new one), each account's person; built on first use. */
const indexes = new WeakMap<People, Map<string, string>>();

/**
 * The person key of a user: the name access.people gives their account, else their id itself.
 * `userId` is platform-qualified, as messages carry it (`slack:U0ABC`, `web:<browser>`); `web` in
 * a person's list stands for every web chat user (the token holder).
 */
export function personOf(access: { people: People }, userId: string): string {
  let index = indexes.get(access.people);
  if (!index) {
    index = new Map();
    for (const [name, accounts] of Object.entries(access.people)) for (const account of accounts) index.set(account, name);
    indexes.set(access.people, index);
  }
  return index.get(userId) ?? (userId.startsWith("web:") ? index.get("web") : undefined) ?? userId;
}

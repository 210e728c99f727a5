// Who an access list names. An entry is a user (`slack:U0ABC`, `telegram:123`, `matrix:@ana:x.org`,
// `<platform>:*` for everyone there, `web` for the web chat's token holder) or one of the platforms'
// own groups: a Slack user group, a Discord role, a Matrix power level in the room, the Telegram
// group's administrators. `access.people` joins one person's accounts.
import { z } from "zod";

/** The group entries, each in its one accepted shape. */
const GROUP_SHAPES = [/^slack:group:[A-Z0-9]+$/, /^discord:role:\d+$/, /^matrix:power:-?\d+$/, /^telegram:admins$/];
/** What starts a group entry (a malformed one is refused rather than taken for a user id). */
const GROUP_PREFIX = /^(slack:group:|discord:role:|matrix:power:|telegram:admins)/;

/** True when an access-list entry names a platform's group rather than one user. */
export function isGroupPrincipal(entry: string): boolean {
  return GROUP_SHAPES.some((shape) => shape.test(entry));
}

/** The access lists of a config: who gets in, the roles, and each binding's narrowing. */
interface AccessLists {
  access: { allow: string[]; roles: { admin: string[]; member: string[] } };
  bindings: Array<{ allow?: string[] }>;
}

/** The entries access names: access.allow and both roles. */
export function accessEntries(access: AccessLists["access"]): string[] {
  return [...access.allow, ...access.roles.admin, ...access.roles.member];
}

/** Every entry the config's access lists name: access.allow, access.roles and each binding's allow. */
export function accessListEntries(config: AccessLists): string[] {
  return [...accessEntries(config.access), ...config.bindings.flatMap((b) => b.allow ?? [])];
}

/** An access-list entry: a user with their platform, `<platform>:*`, `web`, or a platform's group. */
export const principal = z
  .string()
  .regex(/^(web|[a-z0-9_]+:.+)$/, {
    // A bare word is most often a person's name from access.people, which names no account by itself.
    error: (issue) =>
      typeof issue.input === "string" && !issue.input.includes(":")
        ? `${issue.input} has no platform: an access list takes a user id with its platform, such as slack:U0ABC or telegram:123456, web, or a platform's group — not a person's name from access.people: list that person's accounts here`
        : "a user id with its platform, such as telegram:123456, or web",
  })
  .refine((entry) => !GROUP_PREFIX.test(entry) || isGroupPrincipal(entry), "a group entry is one of slack:group:<user group id, S…>, discord:role:<role id>, matrix:power:<level>, telegram:admins");

/** One account of a person: a user id with its platform (no wildcard, no group), or `web`. */
const account = z
  .string()
  .regex(/^(web|[a-z0-9_]+:[^*]+)$/, "an account: a user id with its platform, such as slack:U0ABC or telegram:123456, or web")
  .refine((id) => !GROUP_PREFIX.test(id), "an account is one user, not a group, role, power level or telegram:admins");

const PERSON_NAME = /^[a-z0-9][a-z0-9_.-]*$/;

export const peopleSchema = z
  .record(z.string(), z.array(account).min(1, "at least one account"))
  .default({})
  .superRefine((people, ctx) => {
    const owner = new Map<string, string>();
    for (const [name, accounts] of Object.entries(people)) {
      if (!PERSON_NAME.test(name)) ctx.addIssue({ code: "custom", path: [name], message: "a person's name: lower-case letters, digits, . _ - (no colon, which marks an account)" });
      for (const id of accounts) {
        const other = owner.get(id);
        if (other !== undefined && other !== name) ctx.addIssue({ code: "custom", path: [name], message: `${id} is already ${other}'s account; an account belongs to one person` });
        owner.set(id, name);
      }
    }
  })
  .describe("People with several accounts: { ana: [slack:U0ABC, telegram:123] }; limits and the audit trail count each person once");

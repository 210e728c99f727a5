// Who someone is to Baton: an admin, a member, or nobody. Read from access.allow (members),
// access.roles and the platform's own authentication (the web chat's token holder is an admin
// unless the config lists `web` under member only), at each question, so a reload applies at once.
// access.commands moves a command between the roles. An entry may name a platform's own group
// (groups.ts looks it up before an event is checked), and a binding's `allow` narrows who may talk
// in its channels.
import { accessEntries, isGroupPrincipal } from "../../config/principals.js";
import type { BatonConfig } from "../../config/schema.js";
import { CommandError } from "../../kernel/errors.js";
import type { PlatformUser } from "../../platforms/contract.js";
import { type Binding, describeBinding } from "../bindings.js";
import type { GroupMembership } from "./groups.js";

export type Role = "admin" | "member";
export type AccessConfig = BatonConfig["access"];

/**
 * Commands with parts only an admin may use by default: schedule add/rm, workspace --switch and
 * new <workspace> outside the chat's binding, switch, session --switch, stop of another's turn.
 */
const ADMIN_BY_DEFAULT: ReadonlySet<string> = new Set(["schedule", "workspace", "new", "switch", "session", "stop"]);

export interface RolesOptions {
  /** Answers for the group entries (Slack user groups, Discord roles, …); without it a group entry matches nobody. */
  groups?: GroupMembership;
  /** The binding a route is under, if any (its `allow` narrows who may talk there). */
  binding?(route: string): Binding | undefined;
}

export class Roles {
  constructor(
    private readonly access: () => AccessConfig,
    /** The platform instance of the route vouches for its users (the web chat's token). */
    private readonly authenticated: (route: string) => boolean,
    private readonly options: RolesOptions = {},
  ) {}

  /** Looks up the groups the access lists name for this user on this route (cached); call before the checks of an event. */
  async prepare(user: PlatformUser, route: string): Promise<void> {
    const { groups, binding } = this.options;
    if (!groups) return;
    await groups.refresh([...accessEntries(this.access()), ...(binding?.(route)?.allow ?? [])], user, route);
  }

  /** The person's role on this route; undefined for a stranger, or for one the route's binding does not let talk there. */
  roleOf(userId: string, route: string): Role | undefined {
    const role = this.listedRole(userId, route);
    const narrowed = this.options.binding?.(route)?.allow;
    if (role === undefined || narrowed === undefined) return role;
    return this.matches(narrowed, userId, route) ? role : undefined;
  }

  /** What a stranger is told: the id to add, and where (access.allow, or the allow of the binding that keeps them out). */
  refusal(userId: string, route: string): string {
    const binding = this.options.binding?.(route);
    if (binding?.allow && this.listedRole(userId, route) !== undefined) {
      return `Sorry, this chat is only for the people ${describeBinding(binding)} allows. An operator can add \`${userId}\` to that binding's allow.`;
    }
    return `Sorry, you are not allowed to use this bot. Ask the operator to add \`${userId}\` to access.allow.`;
  }

  private listedRole(userId: string, route: string): Role | undefined {
    const { allow, roles } = this.access();
    if (this.matches(roles.admin, userId, route)) return "admin";
    if (this.authenticated(route)) return this.matches(roles.member, userId, route) ? "member" : "admin";
    if (this.matches(roles.member, userId, route) || this.matches(allow, userId, route)) return "member";
    return undefined;
  }

  /** True when an entry in the list names the user: their id, `<platform>:*`, `web` for any web chat user, or a group they are in. */
  private matches(list: readonly string[], userId: string, route: string): boolean {
    const platform = userId.slice(0, userId.indexOf(":"));
    const groups = this.options.groups;
    return list.some((p) => p === userId || p === `${platform}:*` || (p === "web" && platform === "web") || (groups !== undefined && isGroupPrincipal(p) && groups.has(p, userId, route)));
  }

  isAdmin(userId: string, route: string): boolean {
    return this.roleOf(userId, route) === "admin";
  }

  /** The role the config gives a command (access.commands), or undefined when it says nothing. */
  configured(command: string): Role | undefined {
    return this.access().commands[command];
  }

  /** The role a command's admin-only part needs: the config's word, else admin. */
  roleFor(command: string): Role {
    return this.configured(command) ?? (ADMIN_BY_DEFAULT.has(command) ? "admin" : "member");
  }

  /** Throws a CommandError naming the role and the person's id when they may not do `what`. */
  require(command: string, what: string, userId: string, route: string): void {
    const needed = this.roleFor(command);
    const role = this.roleOf(userId, route);
    if (needed === "member" ? role !== undefined : role === "admin") return;
    throw new CommandError(refusal(what, needed, userId, role));
  }
}

/** A refusal in plain words: what was refused, the role it needs, the person's id and how to get the role. */
function refusal(what: string, needed: Role, userId: string, role: Role | undefined): string {
  const you = role ? `you (\`${userId}\`) are a ${role}` : `\`${userId}\` has no role here`;
  return `${what} needs the ${needed} role; ${you}. An operator can add \`${userId}\` to access.roles.${needed}.`;
}

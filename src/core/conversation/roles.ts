// Who someone is to Baton: an admin, a member, or nobody. Read from access.allow (members),
// access.roles and the platform's own authentication (the web chat's token holder is an admin
// unless the config lists `web` under member only), at each question, so a reload applies at once.
// access.commands moves a command between the roles.
import type { BatonConfig } from "../../config/schema.js";
import { CommandError } from "../../kernel/errors.js";

export type Role = "admin" | "member";
export type AccessConfig = BatonConfig["access"];

/**
 * Commands with parts only an admin may use by default: schedule add/rm, workspace --switch and
 * new <workspace> outside the chat's binding, switch, session --switch, stop of another's turn.
 */
const ADMIN_BY_DEFAULT: ReadonlySet<string> = new Set(["schedule", "workspace", "new", "switch", "session", "stop"]);

export class Roles {
  constructor(
    private readonly access: () => AccessConfig,
    /** The platform instance of the route vouches for its users (the web chat's token). */
    private readonly authenticated: (route: string) => boolean,
  ) {}

  /** The person's role on this route; undefined for a stranger. */
  roleOf(userId: string, route: string): Role | undefined {
    const { allow, roles } = this.access();
    if (matches(roles.admin, userId)) return "admin";
    if (this.authenticated(route)) return matches(roles.member, userId) ? "member" : "admin";
    if (matches(roles.member, userId) || matches(allow, userId)) return "member";
    return undefined;
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

/** True when a principal in the list names the user: their id, `<platform>:*`, or `web` for any web chat user. */
function matches(list: readonly string[], userId: string): boolean {
  const platform = userId.slice(0, userId.indexOf(":"));
  return list.some((p) => p === userId || p === `${platform}:*` || (p === "web" && platform === "web"));
}

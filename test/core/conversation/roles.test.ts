// Who is an admin, a member or nobody, from access.allow, access.roles and the platform's own
// authentication (the web chat's token), and what access.commands does to a command's role.
import { describe, expect, it } from "vitest";
import { configSchema } from "../../../src/config/schema.js";
import { Roles } from "../../../src/core/conversation/roles.js";

function roles(access: Record<string, unknown>): Roles {
  const config = configSchema.parse({ access });
  // Routes of the web chat start with web: (its users are vouched for by the token).
  return new Roles(
    () => config.access,
    (route) => route.startsWith("web:"),
  );
}

describe("roles", () => {
  it("makes access.allow members, access.roles.admin admins, a platform wildcard everyone there, others nobody", () => {
    const r = roles({ allow: ["telegram:1", "slack:*"], roles: { admin: ["telegram:2"], member: ["matrix:@a:x"] } });
    expect(r.roleOf("telegram:1", "telegram:1")).toBe("member");
    expect(r.roleOf("telegram:2", "telegram:2")).toBe("admin");
    expect(r.roleOf("slack:U9", "slack:C1")).toBe("member");
    expect(r.roleOf("matrix:@a:x", "matrix:!r")).toBe("member");
    expect(r.roleOf("telegram:3", "telegram:3")).toBeUndefined();
  });

  it("makes the web chat's token holder an admin unless `web` is listed under member only", () => {
    expect(roles({}).roleOf("web:b1", "web:c1")).toBe("admin");
    expect(roles({ roles: { member: ["web"] } }).roleOf("web:b1", "web:c1")).toBe("member");
    expect(roles({ roles: { member: ["web"], admin: ["web"] } }).roleOf("web:b1", "web:c1")).toBe("admin");
  });

  it("refuses an admin-only part to a member with the role and their id; access.commands moves it", () => {
    const r = roles({ allow: ["telegram:1"] });
    expect(() => r.require("schedule", "Adding a schedule", "telegram:1", "telegram:1")).toThrow(
      "Adding a schedule needs the admin role; you (`telegram:1`) are a member. An operator can add `telegram:1` to access.roles.admin.",
    );
    expect(() => r.require("status", "/status", "telegram:1", "telegram:1")).not.toThrow();
    const moved = roles({ allow: ["telegram:1"], commands: { schedule: "member", status: "admin" } });
    expect(() => moved.require("schedule", "Adding a schedule", "telegram:1", "telegram:1")).not.toThrow();
    expect(() => moved.require("status", "/status", "telegram:1", "telegram:1")).toThrow(/needs the admin role/);
    expect(() => moved.require("schedule", "Adding a schedule", "telegram:9", "telegram:9")).toThrow("`telegram:9` has no role here");
  });

  it("rejects a principal without its platform and a role that is neither admin nor member", () => {
    expect(() => configSchema.parse({ access: { roles: { admin: ["U0ABC"] } } })).toThrow(/a user id with its platform/);
    expect(() => configSchema.parse({ access: { commands: { schedule: "owner" } } })).toThrow();
  });
});

// The platforms' own groups in access lists: the core asks the route's adapter (memberOf), keeps the
// answer for access.group_ttl, refuses when the lookup failed (the reason logged, not asked again
// for a while) and lets a binding's allow narrow who may talk in its channels.
import { afterEach, describe, expect, it, vi } from "vitest";
import { configSchema } from "../../../src/config/schema.js";
import { configWarnings } from "../../../src/config/warnings.js";
import { GroupMembership } from "../../../src/core/conversation/groups.js";
import { Roles } from "../../../src/core/conversation/roles.js";
import type { Binding } from "../../../src/core/bindings.js";
import type { PlatformUser } from "../../../src/platforms/contract.js";

const TTL_MS = 1000;

/** A platform whose group S0DEVS has the members in `members`; `fail` makes the next lookups throw. */
function fakePlatform() {
  const members = new Set<string>(["slack:U1"]);
  const calls: string[] = [];
  const state = { fail: undefined as string | undefined };
  const adapter = {
    async memberOf(principal: string, user: PlatformUser, route: string): Promise<boolean> {
      calls.push(`${principal} ${user.id} ${route}`);
      if (state.fail) throw new Error(state.fail);
      return principal === "slack:group:S0DEVS" && members.has(user.id);
    },
    groupScope: (route: string) => route.split("/")[0],
  };
  return { adapter, members, calls, state };
}

function setup(access: Record<string, unknown>, binding?: Binding) {
  const platform = fakePlatform();
  const log = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };
  const config = configSchema.parse({ access: { group_ttl: TTL_MS, ...access } });
  const groups = new GroupMembership({ adapterOf: (route) => (route.startsWith("slack:") ? platform.adapter : undefined), ttlMs: () => config.access.group_ttl, log });
  const roles = new Roles(
    () => config.access,
    () => false,
    { groups, binding: () => binding },
  );
  return { ...platform, log, roles };
}

const ROUTE = "slack:T1/C1";
afterEach(() => vi.useRealTimers());

describe("group entries in access lists", () => {
  it("lets a group's member in once looked up, refuses someone outside, and asks once per scope and TTL", async () => {
    const { roles, calls } = setup({ allow: ["slack:group:S0DEVS"] });
    expect(roles.roleOf("slack:U1", ROUTE)).toBeUndefined(); // nothing looked up yet: no
    await roles.prepare({ id: "slack:U1" }, ROUTE);
    await roles.prepare({ id: "slack:U2" }, ROUTE);
    expect(roles.roleOf("slack:U1", ROUTE)).toBe("member");
    expect(roles.roleOf("slack:U2", ROUTE)).toBeUndefined();
    await roles.prepare({ id: "slack:U1" }, "slack:T1/C2:1.2"); // another channel of the workspace: the same scope
    expect(calls).toEqual([`slack:group:S0DEVS slack:U1 ${ROUTE}`, `slack:group:S0DEVS slack:U2 ${ROUTE}`]);
  });

  it("asks only about its own platform's groups", async () => {
    const { roles, calls } = setup({ allow: ["slack:group:S0DEVS", "telegram:admins"], roles: { admin: ["discord:role:42"] } });
    await roles.prepare({ id: "slack:U1" }, ROUTE);
    expect(calls).toEqual([`slack:group:S0DEVS slack:U1 ${ROUTE}`]);
  });

  it("refuses after the TTL once the member left the group", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const { roles, members } = setup({ roles: { admin: ["slack:group:S0DEVS"] } });
    await roles.prepare({ id: "slack:U1" }, ROUTE);
    expect(roles.roleOf("slack:U1", ROUTE)).toBe("admin");
    members.delete("slack:U1");
    vi.advanceTimersByTime(TTL_MS / 2);
    await roles.prepare({ id: "slack:U1" }, ROUTE);
    expect(roles.roleOf("slack:U1", ROUTE)).toBe("admin"); // still kept
    vi.advanceTimersByTime(TTL_MS);
    expect(roles.roleOf("slack:U1", ROUTE)).toBeUndefined(); // too old even before a new lookup
    await roles.prepare({ id: "slack:U1" }, ROUTE);
    expect(roles.roleOf("slack:U1", ROUTE)).toBeUndefined();
  });

  it("refuses when the lookup fails, logs the reason, and does not ask again within the hold", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const { roles, calls, state, log } = setup({ allow: ["slack:group:S0DEVS"] });
    state.fail = "Slack refused usergroups.users.list: missing_scope";
    await roles.prepare({ id: "slack:U1" }, ROUTE);
    expect(roles.roleOf("slack:U1", ROUTE)).toBeUndefined();
    expect(log.warn).toHaveBeenCalledWith(
      { principal: "slack:group:S0DEVS", user: "slack:U1", route: ROUTE, reason: "Slack refused usergroups.users.list: missing_scope" },
      expect.stringMatching(/^refused: could not look up/),
    );
    await roles.prepare({ id: "slack:U1" }, ROUTE);
    await roles.prepare({ id: "slack:U1" }, ROUTE);
    expect(calls).toHaveLength(1);
    state.fail = undefined;
    vi.advanceTimersByTime(TTL_MS);
    await roles.prepare({ id: "slack:U1" }, ROUTE);
    expect(roles.roleOf("slack:U1", ROUTE)).toBe("member");
    expect(calls).toHaveLength(2);
  });

  it("refuses, with the reason logged, a group no adapter can look up", async () => {
    const { roles, log } = setup({ allow: ["telegram:admins"] });
    await roles.prepare({ id: "telegram:5" }, "telegram:-100");
    expect(roles.roleOf("telegram:5", "telegram:-100")).toBeUndefined();
    expect(log.warn).toHaveBeenCalledWith({ principal: "telegram:admins", user: "telegram:5", route: "telegram:-100" }, expect.stringMatching(/cannot look up/));
  });

  it("asks once for events that come together", async () => {
    const { roles, calls } = setup({ allow: ["slack:group:S0DEVS"] });
    await Promise.all([roles.prepare({ id: "slack:U1" }, ROUTE), roles.prepare({ id: "slack:U1" }, ROUTE)]);
    expect(calls).toHaveLength(1);
  });
});

describe("the group cache's bounds", () => {
  const log = () => ({ debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() });

  it("keeps at most 10,000 answers, forgetting the least recently asked first", async () => {
    const adapter = { memberOf: async () => true };
    const groups = new GroupMembership({ adapterOf: () => adapter, ttlMs: () => 60_000, log: log() });
    for (let i = 0; i <= 10_000; i++) await groups.refresh(["slack:group:S0DEVS"], { id: `slack:U${i}` }, ROUTE);
    expect(groups.has("slack:group:S0DEVS", "slack:U0", ROUTE)).toBe(false);
    expect(groups.has("slack:group:S0DEVS", "slack:U1", ROUTE)).toBe(true);
    expect(groups.has("slack:group:S0DEVS", "slack:U10000", ROUTE)).toBe(true);
  });

  it("takes a lookup with no answer in 10 s as failed: refused and logged, not waited on for ever", async () => {
    vi.useFakeTimers();
    const warn = log();
    const groups = new GroupMembership({ adapterOf: () => ({ memberOf: () => new Promise<boolean>(() => undefined) }), ttlMs: () => 60_000, log: warn });
    const refreshed = groups.refresh(["slack:group:S0DEVS"], { id: "slack:U1" }, ROUTE);
    await vi.advanceTimersByTimeAsync(10_000);
    await refreshed;
    expect(groups.has("slack:group:S0DEVS", "slack:U1", ROUTE)).toBe(false);
    expect(warn.warn).toHaveBeenCalledWith(expect.objectContaining({ reason: "no answer within 10 s" }), expect.stringMatching(/could not look up/));
  });
});

describe("a binding's allow", () => {
  const binding = (allow: string[]): Binding => ({ index: 0, match: "slack:T1/C1*", workspace: "/w", allow });

  it("narrows who may talk there to its entries, admins included, with a refusal naming the binding", async () => {
    const { roles } = setup({ allow: ["slack:U2", "slack:U3"], roles: { admin: ["slack:U9"] } }, binding(["slack:group:S0DEVS", "slack:U3", "slack:U4"]));
    for (const id of ["slack:U1", "slack:U2", "slack:U3", "slack:U9"]) await roles.prepare({ id }, ROUTE);
    expect(roles.roleOf("slack:U3", ROUTE)).toBe("member");
    expect(roles.roleOf("slack:U2", ROUTE)).toBeUndefined();
    expect(roles.roleOf("slack:U9", ROUTE)).toBeUndefined();
    // In the group, but not let in by access.allow or access.roles: a binding narrows, it never widens.
    expect(roles.roleOf("slack:U1", ROUTE)).toBeUndefined();
    expect(roles.roleOf("slack:U4", ROUTE)).toBeUndefined();
    expect(roles.refusal("slack:U2", ROUTE)).toBe("Sorry, this chat is only for the people `slack:T1/C1*` (bindings[0] in the config) allows. An operator can add `slack:U2` to that binding's allow.");
    expect(roles.refusal("slack:U7", ROUTE)).toBe("Sorry, you are not allowed to use this bot. Ask the operator to add `slack:U7` to access.allow.");
  });
});

describe("group entries in the config", () => {
  it("refuses a malformed group entry in plain words, and accepts the four kinds", () => {
    const issues = (allow: string[]) => {
      const r = configSchema.safeParse({ access: { allow } });
      return r.success ? [] : r.error.issues.map((i) => i.message);
    };
    expect(issues(["slack:group:S0DEVS", "discord:role:123456789012345678", "matrix:power:50", "telegram:admins"])).toEqual([]);
    for (const bad of ["matrix:power:high", "discord:role:devs", "slack:group:", "telegram:admins2"]) expect(issues([bad])[0]).toMatch(/a group entry is one of slack:group:/);
    const bound = configSchema.safeParse({ bindings: [{ match: "slack:*", workspace: "/w", allow: ["matrix:power:x"] }] });
    expect(bound.success).toBe(false);
  });
});

describe("a binding's allow in `config validate`", () => {
  it("warns of a user it names whom no access list lets in (it narrows, it never widens)", () => {
    const config = configSchema.parse({
      access: { allow: ["slack:U1", "telegram:admins"], roles: { admin: ["slack:U1"] } },
      bindings: [{ match: "slack:*", workspace: "/w", allow: ["slack:U1", "slack:U2", "slack:group:S0", "telegram:5", "web"] }],
    });
    const warnings = configWarnings({ config, platforms: [] }).filter((w) => w.key.startsWith("bindings"));
    expect(warnings).toEqual([
      { key: "bindings[0].allow", message: "bindings[0].allow: slack:U2 is not in access.allow or access.roles, and a binding's allow only narrows who may talk: add slack:U2 to access.allow too" },
    ]);
  });
});

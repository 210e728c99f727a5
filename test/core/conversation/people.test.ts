// One person across several accounts (access.people): the key limits and the audit trail count by.
import { describe, expect, it } from "vitest";
import { configSchema } from "../../../src/config/schema.js";
import { personOf } from "../../../src/core/conversation/people.js";

const access = (people: unknown) => configSchema.parse({ access: { people } }).access;

describe("personOf", () => {
  it("gives each listed account its person's name and anyone else their platform-qualified id", () => {
    const a = access({ ana: ["slack:U0ABC", "telegram:123"], bob: ["matrix:@bob:example.org"] });
    expect(personOf(a, "slack:U0ABC")).toBe("ana");
    expect(personOf(a, "telegram:123")).toBe("ana");
    expect(personOf(a, "matrix:@bob:example.org")).toBe("bob");
    expect(personOf(a, "telegram:456")).toBe("telegram:456");
    expect(personOf(a, "discord:123")).toBe("discord:123");
  });

  it("lets `web` stand for every web chat user, and is empty by default", () => {
    expect(personOf(access({ ana: ["web", "slack:U0ABC"] }), "web:browser1")).toBe("ana");
    expect(personOf(access(undefined), "web:browser1")).toBe("web:browser1");
    expect(personOf(access(undefined), "slack:U0ABC")).toBe("slack:U0ABC");
  });

  it("follows a reload: a new people table is read afresh", () => {
    expect(personOf(access({ ana: ["telegram:1"] }), "telegram:1")).toBe("ana");
    expect(personOf(access({ bea: ["telegram:1"] }), "telegram:1")).toBe("bea");
  });

  it("refuses an account listed under two people, a wildcard, a group and a bad name, in plain words", () => {
    const problems = (people: unknown) => {
      const r = configSchema.safeParse({ access: { people } });
      return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    };
    expect(problems({ ana: ["slack:U1"], bob: ["slack:U1"] })).toEqual(["access.people.bob: slack:U1 is already ana's account; an account belongs to one person"]);
    expect(problems({ ana: ["telegram:*"] })[0]).toMatch(/an account: a user id with its platform/);
    expect(problems({ ana: ["slack:group:S0DEVS"] })[0]).toMatch(/an account is one user, not a group/);
    expect(problems({ ana: ["telegram:admins"] })[0]).toMatch(/not a group/);
    expect(problems({ "Ana Smith": ["slack:U1"] })[0]).toMatch(/a person's name/);
    expect(problems({ ana: [] })).toHaveLength(1);
  });
});

// The bearer token each agent Baton runs gets is a secret Baton knows while the agent lives: no
// log line shows it, and it is let go when the token is revoked (the registry stays bounded).
import { describe, expect, it } from "vitest";
import { HostTokens } from "../../src/core/tool-calls.js";
import { knownSecretCount, redactKnownValues } from "../../src/kernel/secrets.js";

describe("host tokens", () => {
  it("are redacted from log lines until revoked", () => {
    const tokens = new HostTokens();
    const before = knownSecretCount();
    const issued = tokens.issue({ machine: "local", thread: "th_1" });
    expect(redactKnownValues(`POST /mcp Authorization: Bearer ${issued.token}`)).toBe("POST /mcp Authorization: Bearer [REDACTED]");
    expect(knownSecretCount()).toBe(before + 1);
    issued.revoke();
    issued.revoke();
    expect(knownSecretCount()).toBe(before);
    expect(tokens.lookup(issued.token)).toBeUndefined();
  });

  it("issued ahead (a spare's session), speak for the thread they are bound to, and never again once revoked", () => {
    const tokens = new HostTokens();
    const issued = tokens.issue({ machine: "local", thread: "spare" });
    expect(tokens.lookup(issued.token)).toEqual({ machine: "local", thread: "spare" });
    issued.bind({ machine: "local", thread: "th_2" });
    expect(tokens.lookup(issued.token)).toEqual({ machine: "local", thread: "th_2" });
    issued.revoke();
    issued.bind({ machine: "local", thread: "th_3" });
    expect(tokens.lookup(issued.token)).toBeUndefined();
  });
});

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
});

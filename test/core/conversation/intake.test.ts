// The core's intake: one bounded de-duplication by the platform's event id for every adapter, and a
// route's order kept while an adapter is still looking a fact up.
import { describe, expect, it } from "vitest";
import { Intake } from "../../../src/core/conversation/intake.js";
import type { InboundMessage, PlatformLogger } from "../../../src/platforms/contract.js";

const lines: string[] = [];
const log: PlatformLogger = { debug: (_o, m) => void lines.push(`debug ${m}`), info: () => undefined, warn: () => undefined, error: (_o, m) => void lines.push(`error ${m}`) };
const message = (text: string, extra: Partial<InboundMessage> = {}): InboundMessage => ({ route: "slack:T1/C1:1.0", user: { id: "slack:U1" }, text, direct: false, ...extra });

describe("intake", () => {
  it("hands an event id over once per platform instance; messages without one always", async () => {
    const intake = new Intake(log);
    const handled: string[] = [];
    const handle = async (m: InboundMessage) => void handled.push(`${m.route.split(":")[0]} ${m.text}`);
    await intake.run(message("first", { eventId: "C1:1.0" }), handle);
    await intake.run(message("again", { eventId: "C1:1.0" }), handle);
    await intake.run(message("other instance", { route: "slack_b:T1/C1:1.0", eventId: "C1:1.0" }), handle);
    await intake.run(message("no id"), handle);
    await intake.run(message("no id"), handle);
    expect(handled).toEqual(["slack first", "slack_b other instance", "slack no id", "slack no id"]);
    expect(intake.firstDelivery("slack:T1/C1:1.0", "trigger-1")).toBe(true);
    expect(intake.firstDelivery("slack:T1/C1:1.0", "trigger-1")).toBe(false);
  });

  it("keeps a route's order while a fact is looked up, applies what was found, and drops on null or a failed lookup", async () => {
    const intake = new Intake(log);
    const handled: Array<[string, boolean | undefined, string]> = [];
    const handle = async (m: InboundMessage) => void handled.push([m.text, m.replyToBot, m.route]);
    let answer!: (found: { replyToBot: boolean; route: string }) => void;
    const slow = new Promise<{ replyToBot: boolean; route: string }>((resolve) => (answer = resolve));
    const done = [
      intake.run(message("looked up", { lookup: slow }), handle),
      intake.run(message("next"), handle),
      intake.run(message("dropped", { lookup: Promise.resolve(null) }), handle),
      intake.run(message("failed", { lookup: Promise.reject(new Error("gone")) }), handle),
      intake.run(message("last"), handle),
    ];
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(handled).toEqual([]);
    answer({ replyToBot: true, route: "slack:T1/C1:2.0" });
    await Promise.all(done);
    expect(handled).toEqual([
      ["looked up", true, "slack:T1/C1:2.0"],
      ["next", undefined, "slack:T1/C1:1.0"],
      ["last", undefined, "slack:T1/C1:1.0"],
    ]);
    expect(lines).toContain("error a platform could not finish looking up a message; it is dropped");
  });
});

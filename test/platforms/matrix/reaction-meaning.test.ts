// A reaction's emoji follows the meaning a button carries, never the words of its label.
import { describe, expect, it } from "vitest";
import { reactionChoices } from "../../../src/platforms/matrix/approvals.js";

describe("Matrix reaction keys", () => {
  it("come from the button's meaning, in any language, and a choice is numbered", () => {
    const { keys, legend } = reactionChoices([
      { id: "a", label: "Einmal erlauben", meaning: "allow" },
      { id: "b", label: "Immer erlauben", meaning: "allow", lasting: true },
      { id: "c", label: "Ablehnen", meaning: "deny" },
      { id: "d", label: "Immer ablehnen", meaning: "deny", lasting: true },
      { id: "e", label: "Reject the plan", meaning: "choice" },
    ]);
    expect([...keys]).toEqual([
      ["👍", "a"],
      ["✅", "b"],
      ["❌", "c"],
      ["⛔", "d"],
      ["5️⃣", "e"],
    ]);
    expect(legend).toContain("👍 Einmal erlauben · ✅ Immer erlauben · ❌ Ablehnen · ⛔ Immer ablehnen · 5️⃣ Reject the plan");
  });
});

import { describe, expect, it } from "vitest";
import { splitMarkdown } from "../../src/render/split.js";
import { longMarkdown } from "../../src/agents/demo/texts.js";

function fencesBalanced(chunk: string): boolean {
  return (chunk.match(/^```/gm) ?? []).length % 2 === 0;
}

describe("splitMarkdown", () => {
  it("keeps short text whole", () => {
    expect(splitMarkdown("hello", 100)).toEqual(["hello"]);
  });

  it("splits 20 KB of markdown under the limit, fences balanced, nothing lost", () => {
    const text = longMarkdown();
    for (const limit of [4096, 2000, 3000, 500]) {
      const chunks = splitMarkdown(text, limit);
      expect(chunks.length).toBeGreaterThan(1);
      for (const c of chunks) {
        expect(c.length).toBeLessThanOrEqual(limit);
        expect(fencesBalanced(c)).toBe(true);
      }
      // Every original line appears, in order.
      const joined = chunks.join("\n");
      let pos = 0;
      for (const line of text.split("\n").filter((l) => l.trim() && !l.startsWith("```"))) {
        const at = joined.indexOf(line, pos);
        expect(at, `line lost: ${line}`).toBeGreaterThanOrEqual(0);
        pos = at + line.length;
      }
    }
  });

  it("reopens a cut fence with its info string", () => {
    const code = "```python\n" + Array.from({ length: 50 }, (_, i) => `print(${i})`).join("\n") + "\n```";
    const chunks = splitMarkdown(code, 200);
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks) {
      expect(c.startsWith("```python")).toBe(true);
      expect(c.endsWith("```")).toBe(true);
    }
  });

  it("cuts a single enormous line hard", () => {
    const chunks = splitMarkdown("x".repeat(1000), 100);
    expect(chunks.join("")).toBe("x".repeat(1000));
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(100);
  });

  it("prefers paragraph boundaries", () => {
    const text = "a".repeat(60) + "\n\n" + "b".repeat(60);
    expect(splitMarkdown(text, 100)).toEqual(["a".repeat(60), "b".repeat(60)]);
  });
});

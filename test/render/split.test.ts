import { describe, expect, it } from "vitest";
import { splitMarkdown, splitMarkdownPieces } from "../../src/render/split.js";
import { longMarkdown } from "../../src/agents/demo/texts.js";
import { seededRandom } from "../support/seeded-random.js";

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
    const code = `\`\`\`python\n${Array.from({ length: 50 }, (_, i) => `print(${i})`).join("\n")}\n\`\`\``;
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
    const text = `${"a".repeat(60)}\n\n${"b".repeat(60)}`;
    expect(splitMarkdown(text, 100)).toEqual(["a".repeat(60), "b".repeat(60)]);
  });

  it("keeps fences balanced and loses nothing over many random texts, long lines included", () => {
    for (let seed = 1; seed < 400; seed++) {
      let state = seed;
      const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
      const lines: string[] = [];
      let inFence = false;
      for (let i = 0; i < 80; i++) {
        const roll = random();
        if (roll < 0.08) {
          lines.push(inFence ? "```" : "```js");
          inFence = !inFence;
        } else lines.push(roll < 0.25 ? "" : "w".repeat(1 + Math.floor(random() * (roll > 0.97 ? 900 : 60))));
      }
      if (inFence) lines.push("```");
      const text = lines.join("\n");
      const pieces = splitMarkdown(text, 300);
      for (const piece of pieces) {
        expect(piece.length, `seed ${seed}`).toBeLessThanOrEqual(300);
        expect((piece.match(/^```/gm) ?? []).length % 2, `seed ${seed}`).toBe(0);
      }
      const strip = (s: string) => s.replace(/^```.*$/gm, "").replace(/\s+/g, "");
      expect(strip(pieces.join("\n")), `seed ${seed}`).toBe(strip(text));
    }
  });

  it("never cuts an emoji in two", () => {
    const text = "😀".repeat(3000);
    const pieces = splitMarkdown(text, 1001);
    expect(pieces.join("")).toBe(text);
    for (const piece of pieces) expect(piece).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
  });
});

describe("splitMarkdownPieces (what a stream may seal)", () => {
  it("says where each piece ends in the source", () => {
    const text = longMarkdown();
    const pieces = splitMarkdownPieces(text, 2000);
    expect(pieces.map((p) => p.text)).toEqual(splitMarkdown(text, 2000));
    expect(pieces.at(-1)!.end).toBe(text.length);
    for (let i = 1; i < pieces.length; i++) expect(pieces[i].end).toBeGreaterThan(pieces[i - 1].end);
  });

  it("never changes a piece before the last when more text is appended", () => {
    const text = longMarkdown();
    const before = splitMarkdownPieces(text.slice(0, 9000), 1500);
    const after = splitMarkdownPieces(text, 1500);
    for (let i = 0; i < before.length - 1; i++) expect(after[i]).toEqual(before[i]);
  });

  it("gives a text that fits with room to spare the piece the line-by-line split gives it", () => {
    // At a limit 80 characters above the text's length the text is taken whole; one character
    // less and it goes through the line-by-line split, which cannot cut it either.
    const fenceLines = ["```", "```ts", "~~~", "~~~~ python", "````", "  ```", "    ```", "```  ", "~~~~"];
    for (let seed = 1; seed <= 500; seed++) {
      const random = seededRandom(seed);
      const lines: string[] = [];
      const count = 3 + Math.floor(random() * 40);
      for (let i = 0; i < count; i++) {
        const roll = random();
        if (roll < 0.2) lines.push(fenceLines[Math.floor(random() * fenceLines.length)]);
        else if (roll < 0.4) lines.push("");
        else lines.push("word ".repeat(1 + Math.floor(random() * 10)).trim());
      }
      const text = lines.join("\n");
      if (text.trim() === "") continue;
      expect(splitMarkdownPieces(text, text.length + 80), `seed ${seed}: ${JSON.stringify(text)}`).toEqual(splitMarkdownPieces(text, text.length + 79));
    }
  });

  it("continues from a sealed offset inside a fence exactly as a split of the whole", () => {
    const code = Array.from({ length: 300 }, (_, i) => `line ${i} <${i}>`).join("\n");
    const text = `Intro\n\n\`\`\`python\n${code}\n\`\`\`\n\nOutro`;
    const whole = splitMarkdownPieces(text, 1500);
    const cut = whole.findIndex((p) => p.fenceAfter !== undefined);
    expect(cut).toBeGreaterThanOrEqual(0);
    const rest = splitMarkdownPieces(text.slice(whole[cut].end), 1500, whole[cut].fenceAfter);
    expect(rest.map((p) => p.text)).toEqual(whole.slice(cut + 1).map((p) => p.text));
  });
});

// A streamed answer is rendered again at every edit, and the renderers keep what they made of the
// blocks that earlier edits closed. Whatever they keep, each edit must show what a render of the
// whole text at that point shows: that render comes from a fresh copy of the modules.
import { expect, vi } from "vitest";

const ANSWER = [
  "I looked at the failing test. The problem is in `parseConfig`:\n\n",
  "```ts\nexport function parseConfig(text: string) {\n  return yaml.parse(text);\n}\n```\n\n",
  "# What I changed\n\n1. the **loader** now checks `null`\n2. a [link](https://example.com) and <b>html</b>\n\n",
  "- [x] tests pass\n- [ ] docs\n  - nested *item*\n\n> a quote\n> that goes on\n\n",
  "| file | lines |\n|---|---:|\n| a.ts | 12 |\n\nDone, see https://example.com/pr/1 for the ~~old~~ new diff.\n",
].join("");
const EDIT_EVERY_CHARS = 29;

export async function expectStreamedRendersFresh(render: (markdown: string) => string, freshRender: () => Promise<(markdown: string) => string>): Promise<void> {
  const cuts = Array.from({ length: Math.ceil(ANSWER.length / EDIT_EVERY_CHARS) }, (_, i) => Math.min(ANSWER.length, (i + 1) * EDIT_EVERY_CHARS));
  const streamed = cuts.map((cut) => render(ANSWER.slice(0, cut)));
  for (const [i, cut] of cuts.entries()) {
    vi.resetModules();
    const { loadMarkdown } = await import("../../src/render/markdown.js");
    await loadMarkdown();
    const fresh = await freshRender();
    expect(streamed[i], `the edit at ${cut} characters`).toBe(fresh(ANSWER.slice(0, cut)));
  }
}

import type { RootContent } from "mdast";
import { expect, it } from "vitest";
import { renderedOnce } from "../../src/render/rendered-once.js";

it("renders a block object once, and another object with the same content again", () => {
  let calls = 0;
  const render = renderedOnce((block) => `${++calls}:${block.type}`);
  const block: RootContent = { type: "paragraph", children: [{ type: "text", value: "a" }] };
  const twin: RootContent = { type: "paragraph", children: [{ type: "text", value: "a" }] };
  expect([render(block), render(block), render(twin), render(block)]).toEqual(["1:paragraph", "1:paragraph", "2:paragraph", "1:paragraph"]);
});

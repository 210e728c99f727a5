// The size limits of src/: no function over 60 lines, no file over 300, as scripts/long-code.mjs
// counts them (Biome's noExcessiveLinesPerFunction and noExcessiveLinesPerFile; a file's count
// leaves out the lines inside a block comment or a template literal). Past a limit, split by
// meaning: a concept that has a name gets its own function or file.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { findLongCode, LIMITS } from "../../scripts/long-code.mjs";

const shown = (found: Array<{ lines: number; where: string }>) => found.map(({ lines, where }) => `${where} (${lines} lines)`);

describe("size limits of src/", () => {
  const found = findLongCode(["src"]);

  it(`no function over ${LIMITS.function} lines`, () => {
    expect(shown(found.function)).toEqual([]);
  });

  it(`no file over ${LIMITS.file} lines`, () => {
    expect(shown(found.file)).toEqual([]);
  });

  it("counts what it is given (a broken count must not pass by finding nothing)", () => {
    // Lower limits the agent host is over: more than 100 lines, and a start() of more than 20.
    const lower = findLongCode(["src/agents/host.ts"], { function: 20, file: 100 });
    expect(lower.file).toEqual([{ lines: expect.any(Number), where: "src/agents/host.ts" }]);
    expect(lower.file[0].lines).toBeGreaterThan(100);
    const start =
      readFileSync(resolve(import.meta.dirname, "../../src/agents/host.ts"), "utf8")
        .split("\n")
        .findIndex((line) => /^ {2}async start\(\)/.test(line)) + 1;
    expect(lower.function.map((f) => f.where)).toContain(`src/agents/host.ts:${start}`);
    expect(lower.function.every((f) => f.lines > 20)).toBe(true);
  });
});

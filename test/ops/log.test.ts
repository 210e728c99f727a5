// The log as an operator reads it: JSON lines when stderr is not a terminal (a service, a
// container), readable lines on a terminal; the stack of an error in both; times with their zone.
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, localTime, resolveLogFormat } from "../../src/kernel/log.js";

function capture(isTTY: boolean): { stream: Writable & { isTTY: boolean }; lines: string[] } {
  const lines: string[] = [];
  const stream = Object.assign(new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) }), { isTTY });
  return { stream, lines };
}

const ZONED = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/;

describe("log format", () => {
  it("auto: JSON off a terminal, pretty on one; an explicit format wins", () => {
    expect(resolveLogFormat("auto", { isTTY: false })).toBe("json");
    expect(resolveLogFormat("auto", { isTTY: true })).toBe("pretty");
    expect(resolveLogFormat("json", { isTTY: true })).toBe("json");
    expect(resolveLogFormat("pretty", {})).toBe("pretty");
  });

  it("JSON lines carry the zoned time and the error's stack", () => {
    const { stream, lines } = capture(false);
    createLogger({ destination: stream }).error({ err: new Error("boom") }, "it failed");
    const line = JSON.parse(lines[0]) as { time: string; msg: string; err: { message: string; stack: string } };
    expect(line.time).toMatch(ZONED);
    expect(line.msg).toBe("it failed");
    expect(line.err.stack).toMatch(/^Error: boom\n\s+at /);
  });

  it("pretty lines carry the zoned time and the stack, indented under the line", () => {
    const { stream, lines } = capture(true);
    createLogger({ destination: stream }).error({ err: new Error("boom"), platform: "web" }, "it failed");
    const [first, ...stack] = lines[0].trimEnd().split("\n");
    expect(first).toMatch(/^\S+ error it failed boom {2}platform=web$/);
    expect(first.split(" ")[0]).toMatch(ZONED);
    expect(stack.length).toBeGreaterThan(0);
    for (const frame of stack) expect(frame).toMatch(/^ {4}at /);
  });

  it("localTime writes the offset of the machine's zone", () => {
    const at = new Date("2026-11-30T12:00:00.000Z");
    const offset = -at.getTimezoneOffset();
    const text = localTime(at);
    expect(text).toMatch(ZONED);
    expect(new Date(text).getTime()).toBe(at.getTime());
    if (offset === 0) expect(text).toBe("2026-11-30T12:00:00.000+00:00");
  });
});

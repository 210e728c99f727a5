// Agent stderr in a crash report: a bounded tail in bytes, scrubbed, a few short lines in the chat.
import { afterEach, describe, expect, it } from "vitest";
import { StderrTail, STDERR_CHAT_LINE_CHARS, STDERR_CHAT_LINES, STDERR_TAIL_BYTES } from "../../src/agents/stderr.js";
import { startTestBaton, type TestBaton } from "../support/harness.js";
import { TestPlatform } from "../support/test-platform.js";

// Built by concatenation so this file itself holds no token-shaped literal.
const TOKEN = "ghp_" + "ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210";

let baton: TestBaton | undefined;
afterEach(async () => {
  await baton?.stop({ cleanup: true });
  baton = undefined;
});

describe("the stderr tail", () => {
  it("keeps a bounded number of bytes, however much is written without a newline", () => {
    const tail = new StderrTail();
    const chunk = Buffer.alloc(64 * 1024, "x");
    for (let i = 0; i < 1600; i++) tail.push(chunk); // 100 MB
    tail.push(Buffer.from(`\nusing ${TOKEN}\nfatal: giving up\n`));
    expect(Buffer.byteLength(tail.forLog())).toBeLessThanOrEqual(STDERR_TAIL_BYTES + 100);
    expect(tail.forLog()).not.toContain(TOKEN);
    const chat = tail.forChat().split("\n");
    expect(chat.length).toBeLessThanOrEqual(STDERR_CHAT_LINES + 1);
    for (const line of chat) expect(line.length).toBeLessThanOrEqual(STDERR_CHAT_LINE_CHARS + 1);
    expect(chat.at(-1)).toBe("fatal: giving up");
    expect(chat.join("\n")).toContain("using [REDACTED]");
  });

  it("never shows the part of a token that the byte limit cut in two", () => {
    const tail = new StderrTail(40);
    tail.push(Buffer.from(`prefix ${TOKEN} and then the end\n`));
    expect(tail.forLog()).not.toMatch(/[A-Za-z]{3}9876543210/);
    expect(tail.forChat()).toContain("and then the end");
  });

  it("shows short stderr as it is", () => {
    const tail = new StderrTail();
    tail.push(Buffer.from("warning: one\n\nerror: two\n"));
    expect(tail.forChat()).toBe("warning: one\nerror: two");
  });
});

describe("an agent that floods stderr and dies", () => {
  it("gets one crash report with a few short, scrubbed lines", async () => {
    const platform = new TestPlatform();
    baton = await startTestBaton({ adapters: [platform] });
    const route = platform.route("flood");
    await platform.say(route, "demo:stderr-flood");
    const report = await platform.waitFor(route, /Agent exited unexpectedly \(code 4\)/, 20_000);
    expect(report.text.length).toBeLessThan(2_000);
    expect(report.text).toContain("fatal: giving up");
    expect(report.text).not.toContain(TOKEN);
    await new Promise((r) => setTimeout(r, 300));
    const crashReports = platform.on(route).filter((m) => /exited unexpectedly|xxxxxxxxxx/.test(m.text));
    expect(crashReports).toHaveLength(1);
    expect(platform.on(route).reduce((n, m) => n + m.text.length, 0)).toBeLessThan(4_000);
  });
});

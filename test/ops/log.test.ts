// The log as an operator reads it: JSON lines when stderr is not a terminal (a service, a
// container), readable lines on a terminal; the stack of an error in both; times with their zone.
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, localTime, resolveLogFormat } from "../../src/kernel/log.js";
import { PlatformError } from "../../src/kernel/errors.js";
import { forgetSecretValues, registerSecretValues } from "../../src/kernel/secrets.js";

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

// Built by concatenation so this file itself holds no token-shaped literal.
const BOT_TOKEN = "123456789" + ":AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawQ";
const GITHUB = "ghp_" + "ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210";

describe("log lines keep their words", () => {
  it("a refused start's line keeps every word of Baton's message, and the known token goes", () => {
    const { stream, lines } = capture(false);
    registerSecretValues([BOT_TOKEN]);
    try {
      const refused = new PlatformError("Telegram refused to check the bot token (401: Unauthorized).", { reason: "refused", detail: "Telegram check the bot token: HTTP 401 Unauthorized" });
      createLogger({ destination: stream }).error({ err: refused, url: `https://api.telegram.org/bot${BOT_TOKEN}/getMe` }, `start failed; check the bot token: ${BOT_TOKEN}`);
    } finally {
      forgetSecretValues([BOT_TOKEN]);
    }
    const line = JSON.parse(lines[0]) as { msg: string; url: string; err: { message: string } };
    expect(line.err.message).toBe("Telegram check the bot token: HTTP 401 Unauthorized");
    expect(line.msg).toBe("start failed; check the bot token: [REDACTED]");
    expect(line.url).toBe("https://api.telegram.org/bot[REDACTED]/getMe");
    expect(lines[0]).not.toContain(BOT_TOKEN);
  });

  it("Baton's own message is not searched for shapes; outside text in fields and foreign errors is", () => {
    const { stream, lines } = capture(false);
    const log = createLogger({ destination: stream });
    log.warn({ stderr: `agent said: export GH_TOKEN=${GITHUB}`, detail: "password: hunter2x" }, "the secret token: Baton's words, left as they are");
    log.error({ err: new Error(`request failed: curl -u 'admin:${"Hunter2curl"}' https://x`) }, "a library failed");
    const warn = JSON.parse(lines[0]) as { msg: string; stderr: string; detail: string };
    expect(warn.msg).toBe("the secret token: Baton's words, left as they are");
    expect(warn.stderr).toBe("agent said: export GH_TOKEN=[REDACTED]");
    expect(warn.detail).toBe("password: [REDACTED]");
    const error = JSON.parse(lines[1]) as { err: { message: string; stack: string } };
    expect(error.err.message).toBe("request failed: curl -u 'admin:[REDACTED]' https://x");
    expect(error.err.stack).not.toContain("Hunter2curl");
  });

  it("a BatonError keeps its words; its outside cause loses the secret", () => {
    const { stream, lines } = capture(true);
    const cause = new Error(`ECONNREFUSED redis://:${"Hunter2redis"}@cache:6379`);
    createLogger({ destination: stream }).error({ err: new PlatformError("Slack could not be reached.", { reason: "network", detail: "Slack auth.test: token check failed", cause }) }, "start failed");
    const first = lines[0].split("\n")[0];
    expect(first).toContain("start failed Slack auth.test: token check failed: ECONNREFUSED redis://:[REDACTED]@cache:6379");
    expect(lines[0]).not.toContain("Hunter2redis");
  });
});

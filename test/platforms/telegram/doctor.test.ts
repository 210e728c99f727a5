import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkTelegramCredentials } from "../../../src/platforms/telegram/index.js";
import { scrubToken } from "../../../src/platforms/telegram/scrub.js";
import { FakeBotApi } from "../../fakes/telegram/fake-bot-api.js";
import { closedPort } from "../../support/closed-port.js";

let fake: FakeBotApi;
beforeEach(async () => {
  fake = await FakeBotApi.start();
});
afterEach(async () => {
  await fake.close();
});

describe("baton doctor for telegram", () => {
  it("names the bot when the token is good", async () => {
    const report = await checkTelegramCredentials({ token: fake.token, api_root: fake.apiRoot });
    expect(report).toEqual({ ok: true, lines: ["token: ok, @baton_test_bot (id 4242)"] });
  });

  it("fails on a bad token without printing it", async () => {
    const report = await checkTelegramCredentials({ token: "123456:not-the-token", api_root: fake.apiRoot });
    expect(report.ok).toBe(false);
    expect(report.lines[0]).toMatch(/^token rejected: refused \(401: Unauthorized\)/);
    expect(report.unreachable).toBeUndefined();
    expect(report.lines.join(" ")).not.toContain("not-the-token");
  });

  it("fails when Telegram cannot be reached, without printing the token", async () => {
    const port = await closedPort();
    const report = await checkTelegramCredentials({ token: fake.token, api_root: `http://127.0.0.1:${port}` });
    expect(report.ok).toBe(false);
    expect(report).toMatchObject({ unreachable: true });
    expect(report.lines[0]).toMatch(new RegExp(`^cannot reach http://127\\.0\\.0\\.1:${port}: ECONNREFUSED — check the network \\(or api_root\\); the token was not checked$`));
    expect(report.lines.join(" ")).not.toContain(fake.token);
  });

  it("mentions a webhook that polling will remove", async () => {
    fake.webhookUrl = "https://elsewhere.example.com/hook";
    const report = await checkTelegramCredentials({ token: fake.token, api_root: fake.apiRoot, mode: "polling" });
    expect(report.lines).toContain("a webhook is set; Baton removes it when it starts polling");
  });
});

describe("token scrubbing", () => {
  it("removes the token from URLs and bare text", () => {
    const token = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw";
    expect(scrubToken(`request to https://api.telegram.org/bot${token}/getMe failed`)).toBe("request to https://api.telegram.org/bot[REDACTED]/getMe failed");
    expect(scrubToken(`token ${token} leaked`)).toBe("token [REDACTED] leaked");
    expect(scrubToken("short:secret here", "short:secret")).toBe("[REDACTED] here");
  });
});

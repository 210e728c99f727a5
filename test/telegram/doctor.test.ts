import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkTelegramCredentials } from "../../src/platforms/telegram/index.js";
import { scrubToken } from "../../src/platforms/telegram/scrub.js";
import { FakeBotApi } from "../fakes/telegram/fake-bot-api.js";

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
    expect(report.lines[0]).toMatch(/^token: refused \(401: Unauthorized\)/);
    expect(report.lines.join(" ")).not.toContain("not-the-token");
  });

  it("fails when Telegram cannot be reached, without printing the token", async () => {
    const report = await checkTelegramCredentials({ token: fake.token, api_root: "http://127.0.0.1:9" });
    expect(report.ok).toBe(false);
    expect(report.lines[0]).toMatch(/could not be reached/);
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

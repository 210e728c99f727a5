import { describe, expect, it } from "vitest";
import { formatTelegramRoute, parseTelegramRoute } from "../../../src/platforms/telegram/index.js";

describe("telegram routes", () => {
  it.each([
    ["telegram", 111, undefined, "telegram:111"],
    ["telegram", -1001234567890, undefined, "telegram:-1001234567890"],
    ["telegram", -1001234567890, 7, "telegram:-1001234567890:7"],
    ["tg_work", 42, 3, "tg_work:42:3"],
  ])("round-trips %s %s %s", (instance, chatId, threadId, route) => {
    expect(formatTelegramRoute(instance, chatId, threadId)).toBe(route);
    expect(parseTelegramRoute(route, instance)).toEqual(threadId === undefined ? { chatId } : { chatId, threadId });
  });

  it.each(["slack:T1/C2", "telegram", "telegram:", "telegram:abc", "telegram:1:2:3", "telegram:1:-2", "telegram:1:0", "telegram:1.5", "tg_work:1"])("rejects %s", (route) => {
    expect(parseTelegramRoute(route, "telegram")).toBeUndefined();
  });

  it("does not take another instance's routes", () => {
    expect(parseTelegramRoute("telegram_b:5", "telegram")).toBeUndefined();
  });
});

describe("telegram config", () => {
  it("requires the webhook section in webhook mode, naming the key", async () => {
    const { telegramConfigSchema } = await import("../../../src/platforms/telegram/config.js");
    const result = telegramConfigSchema.safeParse({ token: "1:x", mode: "webhook" });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0].path).toEqual(["webhook"]);
    const badSecret = telegramConfigSchema.safeParse({ token: "1:x", mode: "webhook", webhook: { url: "https://x.example/h", secret_token: "has spaces" } });
    expect(badSecret.error!.issues[0].path).toEqual(["webhook", "secret_token"]);
    expect(telegramConfigSchema.parse({ token: "1:x" })).toMatchObject({ mode: "polling", allow_groups: true, listen_all_in: [], max_file_bytes: 20 * 1024 * 1024 });
  });
});

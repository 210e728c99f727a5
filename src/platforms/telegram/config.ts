import { z } from "zod";
import { commonPlatformFields, refuseUrlCredentials } from "../kit/config.js";
import { pacingConfigSchema } from "../kit/pacing.js";

// Kept apart from the adapter so the config loader can validate without loading grammy.
export const telegramConfigSchema = z
  .object({
    kind: z.literal("telegram").optional(),
    ...commonPlatformFields,
    token: z.string().min(1).describe("Bot token from @BotFather, e.g. ${TELEGRAM_BOT_TOKEN}"),
    api_root: z.url().optional().describe("Bot API server root, for a self-hosted Bot API server (no trailing slash)"),
    mode: z.enum(["polling", "webhook"]).default("polling"),
    webhook: z
      .object({
        url: z.url().describe("Public HTTPS URL Telegram posts updates to"),
        listen: z.string().default("127.0.0.1:8443").describe("host:port the webhook server binds"),
        secret_token: z
          .string()
          .regex(/^[A-Za-z0-9_-]{1,256}$/, "1–256 characters of A-Z, a-z, 0-9, _ and - (Telegram's rule)")
          .describe("Checked against X-Telegram-Bot-Api-Secret-Token"),
      })
      .optional(),
    pacing: pacingConfigSchema,
    allow_groups: z.boolean().default(true).describe("Answer in groups at all (still only when addressed)"),
  })
  .strict()
  .refine((config) => config.mode !== "webhook" || config.webhook !== undefined, {
    path: ["webhook"],
    message: "webhook mode needs webhook.url, webhook.listen and webhook.secret_token",
  })
  .superRefine(refuseUrlCredentials("api_root", "token"));

export type TelegramAdapterConfig = z.infer<typeof telegramConfigSchema>;

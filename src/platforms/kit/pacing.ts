// The `pacing:` section of a platform whose limits the core keeps (Telegram, Slack): the
// platform's documented figures are the defaults; a key set here replaces one figure (a
// self-hosted Bot API server with other limits, a Slack workspace on an Enterprise grid).
import { z } from "zod";
import type { PacingLimits } from "../contract.js";

const MS_PER_MINUTE = 60_000;
const MS_PER_SECOND = 1_000;

const positive = z.number().positive();

export const pacingConfigSchema = z
  .object({
    chat_per_second: positive.optional().describe("Sustained calls a second to one chat or channel"),
    chat_burst: z.number().int().positive().optional().describe("Calls one chat or channel may get at once, from rest"),
    group_per_minute: z.number().int().positive().optional().describe("Calls a minute to one group (Telegram)"),
    per_second: z.number().int().positive().optional().describe("Calls a second for the whole bot"),
    edits_per_minute: z.number().int().positive().optional().describe("Edits a minute for the whole workspace (Slack's chat.update)"),
  })
  .strict()
  .optional()
  .describe("The platform's rate limits Baton keeps to; unset keys keep the platform's documented figures");

export type PacingConfig = z.infer<typeof pacingConfigSchema>;

/** The adapter's documented limits with the config's figures in their place. */
export function pacingWith(defaults: PacingLimits, config: PacingConfig): PacingLimits {
  if (!config) return defaults;
  const limits: PacingLimits = { ...defaults };
  if (config.chat_per_second !== undefined || config.chat_burst !== undefined) {
    limits.key = { perSecond: config.chat_per_second ?? defaults.key?.perSecond ?? 1, burst: config.chat_burst ?? defaults.key?.burst ?? 1 };
  }
  if (config.group_per_minute !== undefined) limits.keyWindow = { calls: config.group_per_minute, windowMs: MS_PER_MINUTE };
  if (config.per_second !== undefined) limits.platform = { calls: config.per_second, windowMs: MS_PER_SECOND };
  if (config.edits_per_minute !== undefined) limits.platformEdits = { calls: config.edits_per_minute, windowMs: MS_PER_MINUTE };
  return limits;
}

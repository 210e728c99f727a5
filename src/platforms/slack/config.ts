import { z } from "zod";
import { commonPlatformFields, refuseUrlCredentials } from "../kit/config.js";
import { pacingConfigSchema } from "../kit/pacing.js";
import { parseSlackRoute } from "./routes.js";

// Kept apart from the adapter so the config loader can validate without loading Bolt.
export const slackConfigSchema = z
  .object({
    kind: z.literal("slack").optional(),
    ...commonPlatformFields,
    bot_token: z.string().min(1).describe("xoxb-… bot token"),
    app_token: z.string().min(1).optional().describe("xapp-… app-level token (Socket Mode)"),
    api_url: z.url().optional().describe("Slack Web API base URL, e.g. for GovSlack or tests (ends with /api/)"),
    mode: z.enum(["socket", "http"]).default("socket"),
    signing_secret: z.string().min(1).optional().describe("Required in http mode"),
    listen: z.string().default("127.0.0.1:3000").describe("host:port of the HTTP receiver (http mode)"),
    pacing: pacingConfigSchema,
    listen_all_in: z
      .array(z.string().refine((route) => parseSlackRoute(route) !== undefined, { message: "not a Slack route: use slack:<team>/<channel> or slack:<team>/<channel>:<thread_ts>" }))
      .default([])
      .describe("Routes where every message counts as addressed: a channel (slack:T…/C…) or one thread"),
  })
  .strict()
  .refine((c) => c.mode !== "socket" || !!c.app_token, { message: "socket mode needs app_token (xapp-…)", path: ["app_token"] })
  .refine((c) => c.mode !== "http" || !!c.signing_secret, { message: "http mode needs signing_secret", path: ["signing_secret"] })
  .superRefine(refuseUrlCredentials("api_url", "bot_token"));

export type SlackAdapterConfig = z.infer<typeof slackConfigSchema>;

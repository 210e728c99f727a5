import { z } from "zod";
import { commonPlatformFields } from "../kit/config.js";

export const webConfigSchema = z
  .object({
    kind: z.literal("web").optional(),
    ...commonPlatformFields,
    listen: z.string().default("127.0.0.1:8787").describe("host:port; loopback by default. Port 0 picks a free port."),
    token: z.string().min(16).optional().describe("Access token; created on first start and kept in the data dir when unset"),
  })
  .strict();

export type WebAdapterConfig = z.infer<typeof webConfigSchema>;

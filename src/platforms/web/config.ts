import { z } from "zod";

export const webConfigSchema = z
  .object({
    kind: z.literal("web").optional(),
    enabled: z.boolean().default(true),
    listen: z.string().default("127.0.0.1:8787").describe("host:port; loopback by default. Port 0 picks a free port."),
    token: z.string().min(16).optional().describe("Access token; created on first start and kept in the data dir when unset"),
    min_edit_gap_ms: z.number().int().nonnegative().optional().describe("Least time between two re-renders of a streaming reply (ms); 100 when unset"),
  })
  .strict();

export type WebAdapterConfig = z.infer<typeof webConfigSchema>;

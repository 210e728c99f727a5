// Config keys every platform has, with one meaning everywhere: the core applies them.
import { z } from "zod";
import type { CommonPlatformSettings } from "../contract.js";

const DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024;

/** Spread into each platform's `z.object({...})`. */
export const commonPlatformFields = {
  enabled: z.boolean().default(true),
  listen_all_in: z.array(z.string()).default([]).describe("Routes where every message counts as addressed (a group, a channel, one thread)"),
  max_file_bytes: z.number().int().positive().default(DEFAULT_MAX_FILE_BYTES).describe("Files users send larger than this are refused"),
  min_edit_gap_ms: z.number().int().nonnegative().optional().describe("Least time between two edits of one streaming message (ms)"),
};

export function commonSettings(config: { listen_all_in?: string[]; max_file_bytes?: number }): CommonPlatformSettings {
  return { listenAllIn: config.listen_all_in ?? [], maxFileBytes: config.max_file_bytes ?? DEFAULT_MAX_FILE_BYTES };
}

/**
 * A refinement for a config object with a URL key and a key for its secret: credentials inside the
 * URL (`https://user:pass@host`) are refused, naming the key to use instead. Node's fetch refuses
 * such URLs outright, and a URL is shown in messages and logs where a key is not.
 */
export function refuseUrlCredentials(urlKey: string, secretKey: string) {
  return (value: Record<string, unknown>, ctx: z.RefinementCtx): void => {
    const url = value[urlKey];
    if (typeof url !== "string" || !URL.canParse(url)) return;
    const parsed = new URL(url);
    if (!parsed.username && !parsed.password) return;
    ctx.addIssue({
      code: "custom",
      path: [urlKey],
      message: `has a user name or password inside it (user:password@); take them out and put the secret in \`${secretKey}\` beside it instead (URLs with credentials are refused by Node's fetch and would be shown in messages and logs)`,
    });
  };
}

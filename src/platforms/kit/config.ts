// Config keys every platform has, with one meaning everywhere: the core applies them.
import { z } from "zod";
import type { CommonPlatformSettings } from "../contract.js";

export const DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024;

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

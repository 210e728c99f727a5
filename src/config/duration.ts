// Durations in the config: a number of milliseconds, or a number with its unit (500ms, 30s, 10m, 1h, 7d).
import { z } from "zod";

export const durationMs = z
  .union([z.number().int().nonnegative(), z.string().regex(/^\d+(ms|s|m|h|d)$/, "a duration such as 500ms, 30s, 10m, 1h or 7d")])
  .transform((v) => (typeof v === "number" ? v : parseDuration(v)));

export const DURATION_UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

function parseDuration(text: string): number {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(text);
  if (!m) throw new Error(`not a duration: ${text}`);
  return Number(m[1]) * DURATION_UNIT_MS[m[2]];
}

// The windows limits count in: a clock hour (the same on every instance, whoever saw the first
// turn) and a day from midnight in the configured time zone (croner finds the next midnight, DST
// days included). A window's key names it in the store, so a new window starts from zero without
// anything being reset; the time comes from the caller's clock, so tests move it instead of waiting.
import { Cron } from "croner";

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

export interface LimitWindow {
  /** Names the window in the store (`h493520`, `d2026-12-05`). */
  key: string;
  /** When the next window starts (ms since the epoch): the reset time. */
  endsAt: number;
}

export function hourWindow(now: number): LimitWindow {
  const index = Math.floor(now / HOUR_MS);
  return { key: `h${index}`, endsAt: (index + 1) * HOUR_MS };
}

/** Midnight patterns per time zone (a Cron without a function schedules nothing; it only computes). */
const MIDNIGHTS = new Map<string, Cron>();
const DATES = new Map<string, Intl.DateTimeFormat>();

export function dayWindow(now: number, timeZone: string): LimitWindow {
  let midnight = MIDNIGHTS.get(timeZone);
  if (!midnight) MIDNIGHTS.set(timeZone, (midnight = new Cron("0 0 0 * * *", { timezone: timeZone })));
  let date = DATES.get(timeZone);
  // en-CA writes a date as 2026-12-05.
  if (!date) DATES.set(timeZone, (date = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" })));
  const next = midnight.nextRun(new Date(now));
  return { key: `d${date.format(now)}`, endsAt: next ? next.getTime() : now + 24 * HOUR_MS };
}

/** This machine's time zone, for a config without time_zone. */
export function machineTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** `08:00 UTC, in 23 min` (the day too when it is not today). */
export function resetText(endsAt: number, now: number, timeZone: string): string {
  const sameDay = dayWindow(now, timeZone).endsAt >= endsAt;
  const clock = new Intl.DateTimeFormat("en-GB", {
    timeZone,
    hour: "2-digit",
    minute: "2-digit",
    timeZoneName: "short",
    ...(sameDay ? {} : { weekday: "short", day: "numeric", month: "short" }),
  }).format(endsAt);
  return `${clock}, in ${durationText(endsAt - now)}`;
}

/** `23 min`, `5 h 12 min`; under a minute is `1 min` (a reset is never "in 0 min"). */
function durationText(ms: number): string {
  const minutes = Math.max(1, Math.ceil(ms / MINUTE_MS));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

// The windows limits count in and the reset times they name, at the edges a wall clock reaches
// sooner or later: the top of the hour, midnight in the configured zone, and the days daylight saving
// time makes 23 or 25 hours long. Each `now` is given, so these hold whenever the suite runs.
import { describe, expect, it } from "vitest";
import { dayWindow, hourWindow, resetText } from "../../src/core/limits/windows.js";

const at = (iso: string) => Date.parse(iso);

describe("limit windows", () => {
  it("an hour is the clock hour: its last millisecond and the next hour's first fall in two windows", () => {
    const last = hourWindow(at("2026-12-05T10:59:59.999Z"));
    const next = hourWindow(at("2026-12-05T11:00:00.000Z"));
    expect(last.endsAt).toBe(at("2026-12-05T11:00:00Z"));
    expect(next.endsAt).toBe(at("2026-12-05T12:00:00Z"));
    expect(next.key).not.toBe(last.key);
  });

  it("says a reset in minutes, rounded up: 60 min is 1 h, the last seconds 1 min, never 0", () => {
    const ends = at("2026-12-05T11:00:00Z");
    expect(resetText(ends, at("2026-12-05T10:00:00Z"), "UTC")).toBe("11:00 UTC, in 1 h");
    expect(resetText(ends, at("2026-12-05T10:00:30Z"), "UTC")).toBe("11:00 UTC, in 1 h");
    expect(resetText(ends, at("2026-12-05T10:01:00Z"), "UTC")).toBe("11:00 UTC, in 59 min");
    expect(resetText(ends, at("2026-12-05T10:59:59.500Z"), "UTC")).toBe("11:00 UTC, in 1 min");
  });

  it("a day runs from midnight to midnight in the configured zone, and a reset on another day names it", () => {
    const berlin = dayWindow(at("2026-12-05T23:30:00Z"), "Europe/Berlin");
    expect(berlin.key).toBe("d2026-12-06");
    expect(berlin.endsAt).toBe(at("2026-12-06T23:00:00Z"));
    expect(dayWindow(at("2026-12-05T23:30:00Z"), "UTC")).toEqual({ key: "d2026-12-05", endsAt: at("2026-12-06T00:00:00Z") });
    expect(resetText(at("2026-12-06T00:00:00Z"), at("2026-12-05T23:30:00Z"), "UTC")).toBe("00:00 UTC, in 30 min");
    expect(resetText(at("2026-12-07T00:00:00Z"), at("2026-12-05T23:30:00Z"), "UTC")).toBe("Mon 7 Dec, 00:00 UTC, in 24 h 30 min");
  });

  it("a day daylight saving time shortens or lengthens lasts 23 or 25 hours", () => {
    // Europe/Berlin springs forward on 29 March 2026, America/New_York falls back on 1 November 2026.
    // (The zone's short name comes from the ICU data Node ships: "CEST", but "GMT-5" for New York.)
    const spring = dayWindow(at("2026-03-28T23:00:00Z"), "Europe/Berlin");
    expect(spring).toEqual({ key: "d2026-03-29", endsAt: at("2026-03-29T22:00:00Z") });
    expect(resetText(spring.endsAt, at("2026-03-28T23:00:00Z"), "Europe/Berlin")).toMatch(/^00:00 \S+, in 23 h$/);
    const fall = dayWindow(at("2026-11-01T04:00:00Z"), "America/New_York");
    expect(fall).toEqual({ key: "d2026-11-01", endsAt: at("2026-11-02T05:00:00Z") });
    expect(resetText(fall.endsAt, at("2026-11-01T04:00:00Z"), "America/New_York")).toMatch(/^00:00 \S+, in 25 h$/);
  });
});

// Small helpers for pulling text out of the loosely typed records runtimes write.

import { redactSecrets } from "../../kernel/secrets.js";

/** Longest title shown; titles are one line. */
const TITLE_MAX_CHARS = 80;
/** Raw step text kept before redaction and the brief's own cut; bounds memory on huge messages. */
const STEP_RAW_MAX_CHARS = 8 * 1024;

export function str(v: unknown): string | undefined {
  return typeof v === "string" && v.length > 0 ? v : undefined;
}

export function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

export function obj(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** Text of a message content that is a string or an array of `{type: "text", text}` blocks. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  const parts: string[] = [];
  for (const block of arr(content)) {
    const b = obj(block);
    if (!b) continue;
    const t = b.type;
    if ((t === "text" || t === "input_text" || t === "output_text" || t === undefined) && typeof b.text === "string") parts.push(b.text);
  }
  return parts.join("\n");
}

/** Text examined for a title: far more than is shown, so a secret straddling the cut is still recognised. */
const TITLE_SCAN_CHARS = 512;

/**
 * A one-line title with secrets redacted: whitespace collapsed, cut to TITLE_MAX_CHARS. Only the
 * start is examined; redacting whole prompts for every listed file was the listing's main cost.
 */
export function titleOf(text: string | undefined): string {
  if (!text) return "";
  const line = redactSecrets(text.slice(0, TITLE_SCAN_CHARS)).replace(/\s+/g, " ").trim();
  return line.length > TITLE_MAX_CHARS ? `${line.slice(0, TITLE_MAX_CHARS - 1)}…` : line;
}

/** Cuts raw step text so one huge tool output cannot blow up memory. */
export function clip(text: string): string {
  return text.length > STEP_RAW_MAX_CHARS ? text.slice(0, STEP_RAW_MAX_CHARS) : text;
}

/** ISO string from a date, epoch ms/s number or ISO string; undefined when unparsable. */
export function iso(v: unknown): string | undefined {
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? undefined : v.toISOString();
  if (typeof v === "number" && Number.isFinite(v)) {
    // Seconds and milliseconds both occur; anything below 1e11 is seconds (before 1973 in ms).
    const d = new Date(v < 1e11 ? v * 1000 : v);
    return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
  }
  if (typeof v === "string" && v) {
    const n = Number(v);
    if (/^\d+(\.\d+)?$/.test(v) && Number.isFinite(n)) return iso(n);
    const d = new Date(v);
    return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
  }
  return undefined;
}

/** The later of two ISO strings. */
export function later(a: string | undefined, b: string | undefined): string | undefined {
  if (!a) return b;
  if (!b) return a;
  return a > b ? a : b;
}

/** Pretty JSON-ish text of tool input, for command and MCP steps. */
export function brief(v: unknown): string {
  if (typeof v === "string") return v;
  try {
    return JSON.stringify(v) ?? "";
  } catch {
    return "";
  }
}

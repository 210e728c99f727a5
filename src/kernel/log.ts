// One logger for the daemon (pino). Secrets never reach the log: known secret keys are redacted
// by path, every value Baton knows is secret is replaced in every line, and secret shapes are
// looked for only in what came from outside (fields and errors other than Baton's own): the
// message (`msg`) and a BatonError's text are Baton's words and keep all of them.
import { pino, stdSerializers, type Logger } from "pino";
import { Writable } from "node:stream";
import { BatonError } from "./errors.js";
import { redactSecretShapes } from "./secret-shapes.js";
import { redactKnownValues, redactSecrets } from "./secrets.js";

export type { Logger } from "pino";

const REDACT_PATHS = [
  "token",
  "*.token",
  "bot_token",
  "*.bot_token",
  "app_token",
  "*.app_token",
  "secret",
  "*.secret",
  "signing_secret",
  "*.signing_secret",
  "password",
  "*.password",
  "authorization",
  "*.authorization",
  "headers.authorization",
];

export interface LogOptions {
  level?: string;
  /** `auto`: JSON lines when the destination is not a terminal (a service, a container), else pretty. */
  format?: "auto" | "pretty" | "json";
  /** Where lines go (default stderr). */
  destination?: NodeJS.WritableStream & { isTTY?: boolean };
}

export function resolveLogFormat(format: LogOptions["format"], destination: { isTTY?: boolean }): "pretty" | "json" {
  return format === "json" || format === "pretty" ? format : destination.isTTY ? "pretty" : "json";
}

export function createLogger({ level = "info", format = "auto", destination = process.stderr }: LogOptions = {}): Logger {
  const json = resolveLogFormat(format, destination) === "json";
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      const line = scrubLine(chunk.toString("utf8"));
      destination.write(json ? line : prettyLine(line));
      done();
    },
  });
  return pino({ level, redact: { paths: REDACT_PATHS, censor: "[redacted]" }, serializers: { err: serializeError }, base: undefined, timestamp: () => `,"time":"${localTime(new Date())}"` }, sink);
}

/** Fields Baton writes itself: never searched for secret shapes (`err` is scrubbed by serializeError). */
const OWN_FIELDS = new Set(["level", "time", "msg", "err"]);
/** Nesting searched in a field's value; deeper parts are searched as one string. */
const MAX_SCRUB_DEPTH = 6;

/**
 * A JSON log line: shapes out of the fields that may hold outside text, then every known secret out
 * of all of it. The outside fields are searched as one JSON text (one pass of the rules, which keep
 * JSON valid), and the line is rebuilt only when something was found.
 */
function scrubLine(line: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return redactSecrets(line);
  }
  const outside: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) if (!OWN_FIELDS.has(key) && (typeof value === "string" || (typeof value === "object" && value !== null))) outside[key] = value;
  const text = JSON.stringify(outside);
  const scrubbed = text === "{}" ? text : redactSecretShapes(text);
  if (scrubbed === text) return redactKnownValues(line);
  try {
    Object.assign(record, JSON.parse(scrubbed));
  } catch {
    for (const key of Object.keys(outside)) record[key] = scrubValue(record[key], 0);
  }
  return `${redactKnownValues(JSON.stringify(record))}\n`;
}

function scrubValue(value: unknown, depth: number): unknown {
  if (typeof value === "string") return redactSecrets(value);
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_SCRUB_DEPTH) return JSON.parse(redactSecrets(JSON.stringify(value))) as unknown;
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubValue(v, depth + 1)]));
}

/** A stack with its text scrubbed and its frames (`    at fn (file:line:col)`, code locations) as they are. */
function scrubStack(stack: string): string {
  const frames = stack.search(/\n\s+at /);
  return frames < 0 ? redactSecrets(stack) : redactSecrets(stack.slice(0, frames)) + stack.slice(frames);
}

/**
 * pino's error serializer, with secret shapes taken out of what is not Baton's: the message and
 * stack of an error from a library or the platform (and of such a cause), and its other fields.
 * A BatonError's message is Baton's own words (any outside text in it was scrubbed where it came in).
 */
function serializeError(error: unknown): unknown {
  const out = stdSerializers.err(error as Error) as unknown as Record<string, unknown>;
  if (!(error instanceof Error)) return out;
  const chain: Error[] = [];
  for (let e: unknown = error; e instanceof Error && chain.length < MAX_SCRUB_DEPTH && !chain.includes(e); e = e.cause) chain.push(e);
  const words = (e: Error, text: string) => (e instanceof BatonError ? text : redactSecrets(text));
  out.message = chain.map((e) => words(e, e.message)).join(": ");
  out.stack = chain.map((e) => (e instanceof BatonError ? (e.stack ?? "") : scrubStack(e.stack ?? ""))).join("\ncaused by: ");
  if (!(error instanceof BatonError)) {
    for (const key of Object.keys(out)) if (key !== "message" && key !== "stack" && key !== "type") out[key] = scrubValue(out[key], 1);
  }
  return out;
}

/** ISO 8601 in the machine's time zone with its offset (`2026-11-30T21:04:05.120+01:00`): a log read later, elsewhere, still says when. */
export function localTime(date: Date): string {
  const offsetMin = -date.getTimezoneOffset();
  const local = new Date(date.getTime() + offsetMin * 60_000).toISOString().slice(0, 23);
  const sign = offsetMin >= 0 ? "+" : "-";
  const abs = Math.abs(offsetMin);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

const LEVEL_NAMES: Record<number, string> = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };

function prettyLine(jsonLine: string): string {
  try {
    const { level, time, msg, err, ...rest } = JSON.parse(jsonLine) as Record<string, unknown>;
    const extras = Object.entries(rest)
      .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
      .join(" ");
    const error = err && typeof err === "object" ? (err as { message?: string; stack?: string }) : undefined;
    const errText = error ? ` ${error.message ?? ""}` : "";
    // The stack goes under the line, indented, so an operator reading a terminal sees where it came from.
    const stack = error?.stack
      ? `\n${error.stack
          .split("\n")
          .slice(1)
          .map((l) => `    ${l.trim()}`)
          .join("\n")}`
      : "";
    return `${String(time)} ${(LEVEL_NAMES[Number(level)] ?? "log").padEnd(5)} ${msg ?? ""}${errText}${extras ? `  ${extras}` : ""}${stack}\n`;
  } catch {
    return jsonLine;
  }
}

/** A logger that drops everything (tests, benchmarks): into a sink that writes nowhere, because a
 * reload sets the level from the config (`log.level`) and would otherwise start printing on stdout. */
export function silentLogger(): Logger {
  return pino({ level: "silent" }, { write: () => undefined });
}

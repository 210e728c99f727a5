// One logger for the daemon (pino). Secrets never reach the log: known secret keys are redacted
// by path, and every line goes through the one secret scrubber (secrets.ts) before it is written.
import { pino, type Logger } from "pino";
import { Writable } from "node:stream";
import { redactSecrets } from "./secrets.js";

export type { Logger } from "pino";


const REDACT_PATHS = ["token", "*.token", "bot_token", "*.bot_token", "app_token", "*.app_token", "secret", "*.secret", "signing_secret", "*.signing_secret", "password", "*.password", "authorization", "*.authorization", "headers.authorization"];

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
      const line = redactSecrets(chunk.toString("utf8"));
      destination.write(json ? line : prettyLine(line));
      done();
    },
  });
  return pino({ level, redact: { paths: REDACT_PATHS, censor: "[redacted]" }, base: undefined, timestamp: () => `,"time":"${localTime(new Date())}"` }, sink);
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
    const stack = error?.stack ? `\n${error.stack.split("\n").slice(1).map((l) => `    ${l.trim()}`).join("\n")}` : "";
    return `${String(time)} ${(LEVEL_NAMES[Number(level)] ?? "log").padEnd(5)} ${msg ?? ""}${errText}${extras ? `  ${extras}` : ""}${stack}\n`;
  } catch {
    return jsonLine;
  }
}

/** A logger that drops everything (tests, benchmarks). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}

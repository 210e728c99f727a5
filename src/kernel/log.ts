// One logger for the daemon (pino). Secrets never reach the log: known secret keys are redacted
// by path, and every line goes through the one secret scrubber (secrets.ts) before it is written.
import { pino, type Logger } from "pino";
import { Writable } from "node:stream";
import { redactSecrets } from "./secrets.js";

export type { Logger } from "pino";


const REDACT_PATHS = ["token", "*.token", "bot_token", "*.bot_token", "app_token", "*.app_token", "secret", "*.secret", "signing_secret", "*.signing_secret", "password", "*.password", "authorization", "*.authorization", "headers.authorization"];

export interface LogOptions {
  level?: string;
  format?: "pretty" | "json";
  /** Where lines go (default stderr). */
  destination?: NodeJS.WritableStream;
}

export function createLogger({ level = "info", format = "pretty", destination = process.stderr }: LogOptions = {}): Logger {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      const line = redactSecrets(chunk.toString("utf8"));
      destination.write(format === "json" ? line : prettyLine(line));
      done();
    },
  });
  return pino({ level, redact: { paths: REDACT_PATHS, censor: "[redacted]" }, base: undefined }, sink);
}

const LEVEL_NAMES: Record<number, string> = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };

function prettyLine(jsonLine: string): string {
  try {
    const { level, time, msg, err, ...rest } = JSON.parse(jsonLine) as Record<string, unknown>;
    const clock = new Date(Number(time)).toISOString().slice(11, 19);
    const extras = Object.entries(rest)
      .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
      .join(" ");
    const errText = err && typeof err === "object" ? ` ${(err as { message?: string }).message ?? ""}` : "";
    return `${clock} ${(LEVEL_NAMES[Number(level)] ?? "log").padEnd(5)} ${msg ?? ""}${errText}${extras ? `  ${extras}` : ""}\n`;
  } catch {
    return jsonLine;
  }
}

/** A logger that drops everything (tests, benchmarks). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}

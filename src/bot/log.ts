// One logger for the daemon (pino). Secrets never reach the log: known secret keys are redacted
// by path, and every string goes through scrubSecrets() before it is written.
import { pino, type Logger } from "pino";
import { Writable } from "node:stream";

export type { Logger } from "pino";

const SECRET_PATTERNS: RegExp[] = [
  /\b\d{6,12}:[A-Za-z0-9_-]{30,}\b/g, // Telegram bot token
  /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g, // Slack bot/user tokens
  /\bxapp-[A-Za-z0-9-]{10,}\b/g, // Slack app-level token
  /\bgh[pousr]_[A-Za-z0-9]{20,}\b/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{20,}\b/g,
  /\bsk-[A-Za-z0-9_-]{20,}\b/g, // OpenAI / Anthropic style API keys
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key id
  /([?&](?:token|access_token|key)=)[^&\s"]+/gi, // tokens in URLs
  /(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi,
];

export function scrubSecrets(text: string): string {
  let out = text;
  for (const pattern of SECRET_PATTERNS) {
    out = out.replace(pattern, (match, prefix?: string) => (typeof prefix === "string" && match.startsWith(prefix) ? `${prefix}[redacted]` : "[redacted]"));
  }
  return out;
}

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
      const line = scrubSecrets(chunk.toString("utf8"));
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

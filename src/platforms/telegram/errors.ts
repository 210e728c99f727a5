// Turning grammy's errors into Baton's typed PlatformError, without ever leaking the bot token:
// grammy's HttpError wraps the fetch error, whose message can contain the request URL
// (`…/bot123:ABC…/sendMessage`).
import { GrammyError, HttpError } from "grammy";
import { PlatformError } from "../../kernel/errors.js";
import { scrubToken } from "./scrub.js";

export { scrubToken } from "./scrub.js";

export function describeError(error: unknown, token?: string): string {
  if (error instanceof HttpError) {
    const inner = error.error instanceof Error ? error.error.message : String(error.error);
    return scrubToken(`${error.message} ${inner}`, token);
  }
  if (error instanceof Error) return scrubToken(error.message, token);
  return scrubToken(String(error), token);
}

export function telegramErrorCode(error: unknown): number | undefined {
  return error instanceof GrammyError ? error.error_code : undefined;
}

/** Telegram's 400 when the HTML we sent does not parse ("can't parse entities: …"). */
export function isEntityParseError(error: unknown): boolean {
  return error instanceof GrammyError && error.error_code === 400 && /can't parse entities|unsupported start tag|can't find end tag/i.test(error.description);
}

/** Telegram's 400 for an edit that changes nothing; harmless for streaming. */
export function isNotModifiedError(error: unknown): boolean {
  return error instanceof GrammyError && error.error_code === 400 && /message is not modified/i.test(error.description);
}

/**
 * Converts any error of a Bot API call into a PlatformError. `refused`: Telegram answered and said
 * no; `network`: it could not be reached. The original error is not kept as `cause`, because a
 * logger printing the cause chain would print the token.
 */
export function toPlatformError(error: unknown, what: string, token?: string): PlatformError {
  if (error instanceof PlatformError) return error;
  const detail = `${what}: ${describeError(error, token)}`;
  if (error instanceof GrammyError) {
    const retryAfterSeconds = error.parameters?.retry_after;
    return new PlatformError(`Telegram refused to ${what} (${error.error_code}: ${scrubToken(error.description, token)}).`, {
      reason: "refused",
      retryAfterMs: retryAfterSeconds === undefined ? undefined : retryAfterSeconds * 1000,
      detail,
    });
  }
  return new PlatformError(`Telegram could not be reached to ${what}.`, { reason: "network", detail });
}

// Turning grammy's errors into Baton's typed PlatformError, without ever leaking the bot token:
// grammy's HttpError wraps the fetch error, whose message can contain the request URL
// (`…/bot123:ABC…/sendMessage`).
import { GrammyError, HttpError } from "grammy/web";
import { FormattingError, PlatformError } from "../../kernel/errors.js";
import { httpPlatformError, networkPlatformError } from "../kit/errors.js";
import { scrubToken } from "./scrub.js";

export function describeError(error: unknown, token?: string): string {
  if (error instanceof HttpError) {
    // fetch's own message is only "fetch failed"; the reason (ECONNREFUSED, a timeout) is its cause.
    const cause = error.error instanceof Error ? (error.error.cause as { code?: string; message?: string } | undefined) : undefined;
    const inner = error.error instanceof Error ? `${error.error.message}${cause ? ` (${cause.code ?? cause.message})` : ""}` : String(error.error);
    return scrubToken(`${error.message} ${inner}`, token);
  }
  if (error instanceof Error) return scrubToken(error.message, token);
  return scrubToken(String(error), token);
}

export function telegramErrorCode(error: unknown): number | undefined {
  return error instanceof GrammyError ? error.error_code : undefined;
}

/** Telegram's 400 when the HTML we sent does not parse ("can't parse entities: …"). */
function isEntityParseError(error: unknown): boolean {
  return error instanceof GrammyError && error.error_code === 400 && /can't parse entities|unsupported start tag|can't find end tag/i.test(error.description);
}

/** Telegram's 400 for an edit that changes nothing; harmless for streaming. */
export function isNotModifiedError(error: unknown): boolean {
  return error instanceof GrammyError && error.error_code === 400 && /message is not modified/i.test(error.description);
}

/**
 * Converts any error of a Bot API call into a PlatformError the core knows what to do with: a
 * rejected formatting (entities that do not parse, a text too long once rendered) is a
 * FormattingError, 429 is a rate limit for that chat, 5xx trouble on Telegram's side, other
 * answers a refusal, and no answer a network failure. The original error is not kept as `cause`,
 * because a logger printing the cause chain would print the token.
 */
export function toPlatformError(error: unknown, what: string, token?: string): PlatformError {
  if (error instanceof PlatformError) return error;
  if (error instanceof GrammyError) {
    const description = scrubToken(error.description, token);
    if (isEntityParseError(error) || isTooLongError(error)) {
      return new FormattingError(`Telegram refused the formatting (${description}).`, { detail: `${what}: ${description}` });
    }
    const retryAfterSeconds = error.parameters?.retry_after;
    return httpPlatformError("Telegram", what, {
      status: error.error_code,
      description,
      retryAfterMs: retryAfterSeconds === undefined ? undefined : retryAfterSeconds * 1000,
      // Telegram's flood control counts per chat.
      retryScope: "key",
    });
  }
  return networkPlatformError("Telegram", what, describeError(error, token));
}

function isTooLongError(error: GrammyError): boolean {
  return error.error_code === 400 && /message is too long|text is too long/i.test(error.description);
}

// discord.js's errors as Baton's PlatformError: a message Discord refused for its length once
// rendered is a FormattingError (the core resends the same words plain), 429 a rate limit, 5xx
// trouble on Discord's side, any other answer a refusal, no answer a network failure.
import { DiscordAPIError, HTTPError, RateLimitError } from "discord.js";
import { FormattingError, PlatformError } from "../../kernel/errors.js";
import { httpPlatformError, networkPlatformError } from "../kit/errors.js";
import { ContentTooLongError } from "./render.js";

/** Discord's JSON error codes Baton reacts to. */
export const DiscordCode = {
  InvalidFormBody: 50035,
  UnknownInteraction: 10062,
  InteractionAlreadyAcknowledged: 40060,
  ThreadAlreadyCreated: 160004,
  MissingPermissions: 50013,
  MissingAccess: 50001,
  UnknownMember: 10007,
} as const;

export function discordCode(error: unknown): number | undefined {
  return error instanceof DiscordAPIError && typeof error.code === "number" ? error.code : undefined;
}

export function toPlatformError(error: unknown, what: string): PlatformError {
  if (error instanceof PlatformError) return error;
  if (error instanceof ContentTooLongError) return new FormattingError("The message grew past Discord's 2,000 characters once formatted.", { detail: `${what}: ${error.message}` });
  if (error instanceof RateLimitError) {
    return httpPlatformError("Discord", what, { status: 429, description: `rate limited on ${error.route}`, retryAfterMs: error.retryAfter, retryScope: error.global ? "platform" : "key" });
  }
  if (error instanceof DiscordAPIError) {
    const description = `${error.code}: ${error.message.split("\n")[0]}`;
    if (error.code === DiscordCode.InvalidFormBody && /content/.test(JSON.stringify(error.rawError))) {
      return new FormattingError(`Discord refused the message's formatting (${description}).`, { detail: `${what}: ${description}` });
    }
    return httpPlatformError("Discord", what, { status: error.status, description });
  }
  if (error instanceof HTTPError) return httpPlatformError("Discord", what, { status: error.status, description: error.message });
  return networkPlatformError("Discord", what, error instanceof Error ? `${error.name}: ${error.message}` : String(error));
}

// One reading of an HTTP answer for every adapter: 429 is a rate limit (with how long to wait),
// 5xx is the platform having trouble, any other refusal is a no; a request that got no answer at
// all is a network failure. The core retries what retrying can fix and nothing else.
import { PlatformError } from "../../kernel/errors.js";

export interface HttpRefusal {
  status: number;
  /** What the platform said, already free of secrets. */
  description: string;
  retryAfterMs?: number;
  /** What a 429 holds back (Telegram limits per chat, most platforms per bot). */
  retryScope?: "key" | "platform";
}

export function httpPlatformError(platform: string, what: string, refusal: HttpRefusal): PlatformError {
  const { status, description } = refusal;
  const detail = `${platform} ${what}: HTTP ${status} ${description}`;
  if (status === 429) {
    return new PlatformError(`${platform} is rate limiting Baton; it will try again shortly.`, { reason: "rate_limited", retryAfterMs: refusal.retryAfterMs, retryScope: refusal.retryScope, detail });
  }
  if (status >= 500) return new PlatformError(`${platform} is having trouble (${status}).`, { reason: "unavailable", detail });
  return new PlatformError(`${platform} refused to ${what} (${status}: ${description}).`, { reason: "refused", detail });
}

export function networkPlatformError(platform: string, what: string, message: string): PlatformError {
  return new PlatformError(`${platform} could not be reached to ${what}.`, { reason: "network", detail: `${platform} ${what}: ${message}` });
}

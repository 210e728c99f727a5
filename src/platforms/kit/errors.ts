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

/**
 * What a failed start means, for every platform kind alike: `refused` when the platform answered
 * no (a bad token: 401/403, Slack's `invalid_auth`) or the config cannot work, which retrying
 * cannot fix, so the start stops with the adapter's message; `unreachable` when it could not be
 * asked or is having trouble (DNS, a refused or dropped connection, a timeout, 5xx, 429), which
 * the daemon retries with backoff while the other platforms serve.
 */
export type StartFailure = "refused" | "unreachable";

/** Socket and resolver errors that mean the platform was not reached (Node's and undici's codes). */
const NETWORK_ERROR_CODES = new Set([
  "ENOTFOUND",
  "EAI_AGAIN",
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "EPIPE",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_SOCKET",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CLOSED",
]);

export function startFailureOf(error: unknown): StartFailure {
  if (error instanceof PlatformError) return error.reason === "refused" ? "refused" : "unreachable";
  // An SDK that let a socket error through: look for its code down the cause chain.
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, name } = e as { code?: unknown; name?: unknown };
    if ((typeof code === "string" && NETWORK_ERROR_CODES.has(code)) || name === "TimeoutError") return "unreachable";
  }
  return "refused";
}

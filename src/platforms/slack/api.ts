// The Slack Web API calls Baton makes. Errors come out as PlatformError the core knows what to do
// with (never with a token): `rate_limited` with Slack's Retry-After (Slack limits per method and
// workspace, so the whole instance waits), FormattingError when Slack refused the blocks,
// `unavailable` for a 5xx, `refused` for any other answer, `network` when it could not be reached.
import * as webApi from "@slack/web-api";
import { FormattingError, PlatformError } from "../../kernel/errors.js";
import { httpPlatformError, networkPlatformError } from "../kit/errors.js";

type WebClient = InstanceType<typeof webApi.WebClient>;
type WebClientOptions = ConstructorParameters<typeof webApi.WebClient>[1];

/** Used when Slack says `ratelimited` in a 200 answer without a Retry-After header. */
const DEFAULT_RETRY_AFTER_MS = 1000;
/** Slack errors that mean "your formatting": the same words sent plain will do. */
const FORMATTING_ERRORS = new Set(["invalid_blocks", "invalid_blocks_format", "invalid_attachments", "msg_too_long"]);

export interface SlackApiResult {
  ok?: boolean;
  error?: string;
  response_metadata?: { scopes?: string[]; retryAfter?: number };
  [key: string]: unknown;
}

export interface SlackApiOptions {
  botToken: string;
  /** Base URL ending in `/api/` (Slack's other deployments, the tests' fake). */
  apiUrl?: string;
  /** Passed to @slack/web-api for network failures; tests use `{ retries: 0 }`. */
  retryConfig?: NonNullable<WebClientOptions>["retryConfig"];
}

export class SlackApi {
  readonly client: WebClient;

  constructor(options: SlackApiOptions) {
    this.client = new webApi.WebClient(options.botToken, {
      slackApiUrl: options.apiUrl,
      // 429s come back to us at once: the core waits them out, visibly and for every call alike.
      rejectRateLimitedCalls: true,
      retryConfig: options.retryConfig ?? { retries: 0 },
      logLevel: webApi.LogLevel.ERROR,
    });
  }

  /** Calls a Web API method once; throws PlatformError. */
  async call(method: string, params: Record<string, unknown> = {}): Promise<SlackApiResult> {
    try {
      return (await this.client.apiCall(method, params)) as SlackApiResult;
    } catch (error) {
      throw toPlatformError(method, error);
    }
  }
}

interface SlackErrorShape {
  code?: string;
  retryAfter?: number;
  statusCode?: number;
  data?: { error?: string; response_metadata?: { retryAfter?: number } };
  original?: unknown;
}

/** Error codes with which Slack says the trouble is on its side: worth another try later. */
export const SLACK_TROUBLE_ERRORS = new Set(["internal_error", "fatal_error", "service_unavailable", "request_timeout"]);

/** The Slack error code (`channel_not_found`, `invalid_blocks`…) of a refused call, if any. */
export function slackErrorCode(error: unknown): string | undefined {
  if (error instanceof PlatformError) return (error.cause as SlackErrorShape | undefined)?.data?.error;
  return (error as SlackErrorShape)?.data?.error;
}

export function toPlatformError(method: string, error: unknown): PlatformError {
  if (error instanceof PlatformError) return error;
  const e = error as SlackErrorShape;
  if (e?.code === webApi.ErrorCode.RateLimitedError) {
    const retryAfterMs = typeof e.retryAfter === "number" ? e.retryAfter * 1000 : DEFAULT_RETRY_AFTER_MS;
    return httpPlatformError("Slack", method, { status: 429, description: "ratelimited", retryAfterMs });
  }
  if (e?.code === webApi.ErrorCode.PlatformError) {
    const code = e.data?.error ?? "unknown_error";
    if (code === "ratelimited") {
      const seconds = e.data?.response_metadata?.retryAfter;
      return httpPlatformError("Slack", method, { status: 429, description: code, retryAfterMs: typeof seconds === "number" ? seconds * 1000 : DEFAULT_RETRY_AFTER_MS });
    }
    if (SLACK_TROUBLE_ERRORS.has(code)) return new PlatformError(`Slack is having trouble (${code}).`, { reason: "unavailable", detail: `slack ${method}: ${code}`, cause: error });
    if (FORMATTING_ERRORS.has(code)) return new FormattingError(`Slack refused the formatting (${code}).`, { detail: `slack ${method}: ${code}`, cause: error });
    return new PlatformError(`Slack refused ${method}: ${code}`, { reason: "refused", detail: `slack ${method}: ${code}`, cause: error });
  }
  if (e?.code === webApi.ErrorCode.HTTPError) return httpPlatformError("Slack", method, { status: e.statusCode ?? 0, description: "HTTP error" });
  const message = e instanceof Error ? e.message : String(error);
  return networkPlatformError("Slack", method, message);
}

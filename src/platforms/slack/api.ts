// The Slack Web API calls Baton makes, with the two things Slack insists on: honour `Retry-After`
// when rate limited, and keep messages of one channel in order. Errors come out as PlatformError
// (`refused` when Slack answered no, `network` when it could not be reached), never with a token.
import { webApi } from "@slack/bolt";
import { PlatformError } from "../../kernel/errors.js";
import type { PlatformLogger } from "../contract.js";
import { KeyedQueue } from "./memory.js";

type WebClient = InstanceType<typeof webApi.WebClient>;
type WebClientOptions = ConstructorParameters<typeof webApi.WebClient>[1];

/** How often one call is retried after a rate-limit answer before it gives up. */
const RATE_LIMIT_RETRIES = 3;
/** Used when Slack says `ratelimited` in a 200 answer without a Retry-After header. */
const DEFAULT_RETRY_AFTER_MS = 1000;

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
  /** Passed to @slack/web-api; tests use `{ retries: 0 }`. */
  retryConfig?: NonNullable<WebClientOptions>["retryConfig"];
  log: PlatformLogger;
  sleep?: (ms: number) => Promise<void>;
}

export class SlackApi {
  readonly client: WebClient;
  private readonly log: PlatformLogger;
  private readonly sleep: (ms: number) => Promise<void>;
  /** Slack rate-limits per method and workspace: one pause per method. Epoch ms. */
  private readonly pausedUntil = new Map<string, number>();
  private readonly channelQueue = new KeyedQueue();

  constructor(options: SlackApiOptions) {
    this.log = options.log;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.client = new webApi.WebClient(options.botToken, {
      slackApiUrl: options.apiUrl,
      // We handle 429 ourselves so that waits are visible, bounded and shared per method.
      rejectRateLimitedCalls: true,
      retryConfig: options.retryConfig ?? { retries: 2, factor: 2 },
      logLevel: webApi.LogLevel.ERROR,
    });
  }

  /**
   * Calls a Web API method, waiting out rate limits; throws PlatformError. `params` may be a
   * function: it is asked again before every attempt, so a retry sends the newest content.
   */
  async call(method: string, params: Record<string, unknown> | (() => Record<string, unknown>) = {}): Promise<SlackApiResult> {
    for (let attempt = 0; ; attempt++) {
      await this.waitForPause(method);
      try {
        return (await this.client.apiCall(method, typeof params === "function" ? params() : params)) as SlackApiResult;
      } catch (error) {
        const retryAfterMs = retryAfterOf(error);
        if (retryAfterMs === undefined) throw toPlatformError(method, error);
        this.pausedUntil.set(method, Math.max(this.pausedUntil.get(method) ?? 0, Date.now() + retryAfterMs));
        this.log.warn({ method, retryAfterMs, attempt }, "slack: rate limited, waiting as Slack asked");
        if (attempt >= RATE_LIMIT_RETRIES) {
          throw new PlatformError("Slack is rate limiting Baton; try again shortly.", {
            reason: "refused",
            retryAfterMs,
            detail: `slack ${method}: ratelimited after ${attempt + 1} attempts`,
          });
        }
      }
    }
  }

  /** Runs `task` after every earlier task of the same channel, so messages land in order. */
  inChannelOrder<T>(channel: string, task: () => Promise<T>): Promise<T> {
    return this.channelQueue.run(channel, task);
  }

  private async waitForPause(method: string): Promise<void> {
    for (;;) {
      const until = this.pausedUntil.get(method) ?? 0;
      const waitMs = until - Date.now();
      if (waitMs <= 0) return;
      await this.sleep(waitMs);
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

function retryAfterOf(error: unknown): number | undefined {
  const e = error as SlackErrorShape;
  if (e?.code === webApi.ErrorCode.RateLimitedError && typeof e.retryAfter === "number") return e.retryAfter * 1000;
  if (e?.code === webApi.ErrorCode.PlatformError && e.data?.error === "ratelimited") {
    const seconds = e.data.response_metadata?.retryAfter;
    return typeof seconds === "number" ? seconds * 1000 : DEFAULT_RETRY_AFTER_MS;
  }
  return undefined;
}

/** The Slack error code (`channel_not_found`, `invalid_blocks`…) of a refused call, if any. */
export function slackErrorCode(error: unknown): string | undefined {
  if (error instanceof PlatformError) return (error.cause as SlackErrorShape | undefined)?.data?.error;
  return (error as SlackErrorShape)?.data?.error;
}

export function toPlatformError(method: string, error: unknown): PlatformError {
  if (error instanceof PlatformError) return error;
  const e = error as SlackErrorShape;
  if (e?.code === webApi.ErrorCode.PlatformError) {
    const code = e.data?.error ?? "unknown_error";
    return new PlatformError(`Slack refused ${method}: ${code}`, { reason: "refused", detail: `slack ${method}: ${code}`, cause: error });
  }
  if (e?.code === webApi.ErrorCode.HTTPError) {
    const status = e.statusCode ?? 0;
    // A 5xx is Slack having trouble, worth retrying like a network failure; a 4xx is a no.
    const reason = status >= 500 ? "network" : "refused";
    return new PlatformError(`Slack answered HTTP ${status} to ${method}`, { reason, detail: `slack ${method}: HTTP ${status}` });
  }
  const message = e instanceof Error ? e.message : String(error);
  return new PlatformError(`Slack could not be reached (${method})`, { reason: "network", detail: `slack ${method}: ${message}` });
}

// A failed homeserver call as the PlatformError the core acts on: 429 M_LIMIT_EXCEEDED is a rate
// limit for the whole account (Synapse counts messages per user, not per room) with the server's
// wait, 5xx is the homeserver having trouble, any other answer a refusal, no answer at all a
// network failure. An event the homeserver finds too large (413 M_TOO_LARGE) while it carries an
// HTML copy is a FormattingError: the core sends the same words plain, half the size.
// Duck-typed on matrix-js-sdk's HTTPError/MatrixError (httpStatus, errcode, data) so this file
// loads without the SDK. The SDK's error messages hold request URLs; only the errcode and the
// server's own words travel on.
import { FormattingError, PlatformError } from "../../kernel/errors.js";
import { httpPlatformError, networkPlatformError } from "../kit/errors.js";

interface SdkHttpError {
  httpStatus?: number;
  errcode?: string;
  data?: { error?: string; retry_after_ms?: unknown };
  name?: string;
  message?: string;
  getRetryAfterMs?(): number | null;
}

export function toPlatformError(error: unknown, what: string, options: { formatted?: boolean } = {}): PlatformError {
  if (error instanceof PlatformError) return error;
  const e = (error ?? {}) as SdkHttpError;
  const status = e.httpStatus;
  if (!status) return networkPlatformError("Matrix", what, `${e.name ?? "Error"}: ${e.message ?? String(error)}`);
  const description = `${e.errcode ?? "error"} ${e.data?.error ?? ""}`.trim();
  if (options.formatted && (status === 413 || e.errcode === "M_TOO_LARGE")) {
    return new FormattingError("The formatted message is too large for Matrix.", { detail: `Matrix ${what}: HTTP ${status} ${description}` });
  }
  const limited = status === 429 || e.errcode === "M_LIMIT_EXCEEDED";
  return httpPlatformError("Matrix", what, { status: limited ? 429 : status, description, retryAfterMs: limited ? retryAfterMsOf(e) : undefined, retryScope: "platform" });
}

/**
 * The homeserver's wait: `retry_after_ms` in the body (Synapse sends it, to the millisecond), else
 * the `Retry-After` header in whole seconds (the spec's way since Matrix 1.10).
 */
function retryAfterMsOf(e: SdkHttpError): number | undefined {
  const fromBody = e.data?.retry_after_ms;
  if (typeof fromBody === "number" && Number.isFinite(fromBody) && fromBody >= 0) return fromBody;
  try {
    const ms = e.getRetryAfterMs?.();
    if (typeof ms === "number" && ms >= 0) return ms;
  } catch {
    // An invalid value from the server: the core waits its default.
  }
  return undefined;
}

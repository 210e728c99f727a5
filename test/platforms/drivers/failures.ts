// The contract suite's scripted failures as the typed errors an in-process platform throws.
import { FormattingError, PlatformError } from "../../../src/kernel/errors.js";
import type { ScriptedFailure } from "../contract.js";

export function platformErrorOf(failure: ScriptedFailure): PlatformError {
  if (failure.kind === "formatting") return new FormattingError("entities did not parse");
  if (failure.kind === "refused") return new PlatformError("refused", { reason: "refused", detail: "400 Bad Request" });
  return new PlatformError("slow down", { reason: "rate_limited", retryAfterMs: failure.retryAfterMs, retryScope: "key" });
}

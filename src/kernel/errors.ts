// Typed errors. Every BatonError carries a user-facing message (safe to show in chat or on the
// terminal, never a secret) apart from the detail that goes to the log.

export class BatonError extends Error {
  /** Text for the person in the chat or at the terminal. */
  readonly userMessage: string;
  constructor(userMessage: string, options?: { detail?: string; cause?: unknown }) {
    super(options?.detail ?? userMessage, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.userMessage = userMessage;
  }
}

/** The config file is wrong; names the key path and line. */
export class ConfigError extends BatonError {}

/** A chat command was used wrongly; the message says what would work. */
export class CommandError extends BatonError {}

/** A subagent tool call that cannot be done as asked; the message says what would work. */
export class SubagentError extends BatonError {}

/** Pickup / handover failures. */
export class PickupError extends BatonError {}

/** The agent process failed. `fatal` errors (auth required, CLI missing) close the thread. */
export class AgentError extends BatonError {
  readonly fatal: boolean;
  constructor(userMessage: string, options?: { detail?: string; cause?: unknown; fatal?: boolean }) {
    super(userMessage, options);
    this.fatal = options?.fatal ?? false;
  }
}

/**
 * Why a platform call failed, which decides what the core does next:
 * - `refused`: the remote answered and said no (bad request, forbidden, gone). Never retried.
 * - `network`: it could not be reached. Retried with backoff, a bounded number of times.
 * - `rate_limited`: 429; retried after `retryAfterMs`, with every call of its `retryScope` held back.
 * - `unavailable`: the remote is having trouble (5xx). Retried like a network failure.
 */
export type PlatformFailure = "refused" | "network" | "rate_limited" | "unavailable";

export class PlatformError extends BatonError {
  readonly reason: PlatformFailure;
  readonly retryAfterMs?: number;
  /** What a rate limit holds back: the calls of one pace key (a chat), or the whole platform instance. */
  readonly retryScope: "key" | "platform";
  constructor(userMessage: string, options: { reason: PlatformFailure; retryAfterMs?: number; retryScope?: "key" | "platform"; detail?: string; cause?: unknown }) {
    super(userMessage, options);
    this.reason = options.reason;
    this.retryAfterMs = options.retryAfterMs;
    this.retryScope = options.retryScope ?? "platform";
  }
}

/** The platform refused the message's formatting (entities, blocks): the same words sent plain will do. */
export class FormattingError extends PlatformError {
  constructor(userMessage: string, options: { detail?: string; cause?: unknown } = {}) {
    super(userMessage, { ...options, reason: "refused" });
  }
}

export function userMessageOf(error: unknown): string {
  if (error instanceof BatonError) return error.userMessage;
  return "Something went wrong inside Baton; the log has the details.";
}

/** What went wrong when a platform could not be reached at all: the socket error's code, a timeout, or the message. */
export function networkProblem(error: unknown): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === "TimeoutError") return "no answer in time";
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(error);
}
/** A file Baton will not send into a chat: outside the thread's workspace, too large, not a file. */
export class FileRefusedError extends BatonError {}

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
 * A platform call failed. `refused`: the remote answered and said no (bad request, forbidden,
 * rate limited); `network`: it could not be reached. Retrying a refusal is pointless, retrying a
 * network failure with backoff is right.
 */
export class PlatformError extends BatonError {
  readonly reason: "refused" | "network";
  readonly retryAfterMs?: number;
  constructor(userMessage: string, options: { reason: "refused" | "network"; retryAfterMs?: number; detail?: string; cause?: unknown }) {
    super(userMessage, options);
    this.reason = options.reason;
    this.retryAfterMs = options.retryAfterMs;
  }
}

export function userMessageOf(error: unknown): string {
  if (error instanceof BatonError) return error.userMessage;
  return "Something went wrong inside Baton; the log has the details.";
}

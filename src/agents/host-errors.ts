// How a host's request can end other than with an answer: the process died, it did not start in
// time, or Baton stopped it on purpose.
import { AgentError } from "../kernel/errors.js";

/** The agent process died while a request was outstanding. */
export class HostExitedError extends AgentError {
  constructor(
    readonly code: number | null,
    readonly stderrTail: string,
    explanation?: string,
  ) {
    super(explanation ?? `Agent exited unexpectedly (code ${code ?? "unknown"})${stderrTail ? `:\n${stderrTail}` : ""}`);
  }
}

/** A step of starting the agent took longer than its time-out; the host is stopped like a crashed one. */
export class HostStartTimeoutError extends AgentError {
  constructor(
    readonly agent: string,
    readonly step: string,
    readonly limitMs: number,
    readonly stderrTail: string,
  ) {
    super(
      `${agent} ${step === "start" ? "did not start" : `did not answer ${step}`} within ${limitMs / 1000} s, so it was stopped (agents.start_timeout in the config sets the limit)${stderrTail ? `:\n${stderrTail}` : "."}`,
    );
  }
}

/** The host was stopped on purpose (/close, profile switch, shutdown) while a request was outstanding. */
export class HostStoppedError extends AgentError {
  constructor() {
    super("The agent was stopped.");
  }
}

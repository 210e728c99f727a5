// How a turn that failed ends: a stop is a cancellation, a dead or hung process is told to the chat
// (the next message starts a new one and resumes), a fatal error closes the thread, any other fault
// is told to the chat and logged (as a bug when it is not an AgentError).
import { AgentError, userMessageOf } from "../kernel/errors.js";
import type { ThreadRecord } from "../threads/registry.js";
import { HostExitedError, HostStartTimeoutError, HostStoppedError } from "./host-errors.js";
import type { Logger } from "../kernel/log.js";
import type { SupervisorEvent, TurnOutput } from "./supervisor-types.js";

export interface FailedTurnDeps {
  report(event: SupervisorEvent): void | Promise<void>;
  log: Logger;
  /** Forgets the thread's host (its process is gone). */
  forget(threadId: string): void;
  stopHost(threadId: string): Promise<void>;
}

export async function endFailedTurn(deps: FailedTurnDeps, thread: ThreadRecord, turn: TurnOutput, error: unknown): Promise<void> {
  const { log } = deps;
  if (error instanceof HostStoppedError) {
    await turn.finish({ stopReason: "cancelled" });
    return;
  }
  if (error instanceof HostExitedError || error instanceof HostStartTimeoutError) {
    deps.forget(thread.id);
    if (error instanceof HostStartTimeoutError) log.warn({ thread: thread.id, agent: error.agent, step: error.step, limitMs: error.limitMs }, "agent did not finish starting; stopped");
    await turn.finish({ error: `⚠️ ${error.userMessage}\nSend a message to start the agent again; it resumes the session.` });
    return;
  }
  if (error instanceof AgentError && error.fatal) {
    await turn.finish({ error: `⛔ ${error.userMessage}\nThis thread is now closed.` });
    await deps.stopHost(thread.id);
    await deps.report({ type: "fatal", thread, error });
    return;
  }
  // An AgentError is an ordinary fault told to the chat (a machine unreachable, a refusal); anything else is a bug.
  if (error instanceof AgentError) log.warn({ thread: thread.id, reason: error.userMessage }, "turn failed");
  else log.error({ thread: thread.id, err: error }, "turn failed");
  await turn.finish({ error: `⚠️ ${userMessageOf(error)}` });
}

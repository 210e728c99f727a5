// Tool calls waiting for their result. A transcript records the call first and what became of it
// later; a brief must not list a command the person rejected as one that ran, so a call's step is
// held until its result says which it was. Calls never answered (the session ended mid-call) are
// reported as they were asked, at the end.

import type { SessionStep } from "./types.js";
import { clip } from "./text.js";

export type CallOutcome = "ran" | "refused";

export class ToolCallLedger {
  private readonly pending = new Map<string, SessionStep>();

  /** A call: held when it has an id to be answered by, else reported at once. */
  call(id: string | undefined, step: SessionStep): SessionStep[] {
    if (!id) return [step];
    this.pending.set(id, step);
    return [];
  }

  /** The call's result: the step it held, or a note that the person refused it. */
  answer(id: string | undefined, outcome: CallOutcome, exitCode?: number): SessionStep[] {
    const step = id ? this.pending.get(id) : undefined;
    if (!step) return [];
    this.pending.delete(id!);
    if (outcome === "refused") return [{ kind: "tool_failure", text: clip(`Rejected by the user, not run: ${step.text}`), at: step.at }];
    return [exitCode === undefined ? step : { ...step, exitCode }];
  }

  /** Forgets a call another record already reported. */
  settle(id: string | undefined): void {
    if (id) this.pending.delete(id);
  }

  has(id: string | undefined): boolean {
    return !!id && this.pending.has(id);
  }

  unanswered(): SessionStep[] {
    const out = [...this.pending.values()];
    this.pending.clear();
    return out;
  }
}

// Agent processes on this machine run below Baton's CPU priority (agents.nice), so that what they
// run (builds, test suites) cannot slow the chat, whose work is short and waits on nobody.
import { AgentError } from "../kernel/errors.js";
import { runAtLowestPriority, runBelowOwnPriority, runInIdleClass, type IdleClassOutcome } from "../kernel/process.js";
import type { AgentNiceness } from "./host-types.js";

/**
 * Lowers the agent process `pid` as agents.nice says, right after it started. For the idle class
 * the lowest nice value comes first, at once: it stays where the class cannot be had (not Linux, no
 * chrt, the system refuses: the outcome says which), and the threads the agent starts in the
 * meantime inherit it.
 */
export async function lowerAgentPriority(pid: number, niceness: AgentNiceness, agentName: string): Promise<IdleClassOutcome | undefined> {
  try {
    if (niceness === "idle") {
      runAtLowestPriority(pid);
      return await runInIdleClass(pid);
    }
    runBelowOwnPriority(pid, niceness);
    return undefined;
  } catch (error) {
    throw new AgentError(`Could not lower the CPU priority of ${agentName} (${(error as Error).message}). Set agents.nice: 0 to run agents at Baton's own priority.`, { fatal: true, cause: error });
  }
}

// Agent CLIs are heavy to boot: a burst of first prompts starts them a few at a time, so the daemon
// (and the machine) stays responsive instead of booting dozens of processes at once. A start that
// hangs gives its slot up, and a conversation waiting for one is told why.
import type { Logger } from "../kernel/log.js";
import { Slots, type SlotLease } from "./slots.js";

const MAX_CONCURRENT_HOST_STARTS = 4;
/** A start with no progress for this long (an agent that never answers a step) stops holding its slot. */
const START_STALL_MS = 10_000;
/** A conversation waiting this long for a start slot is told why. */
const SLOT_WAIT_NOTICE_MS = 2_000;

export function startSlots(log: Logger): Slots {
  return new Slots(MAX_CONCURRENT_HOST_STARTS, {
    stallMs: START_STALL_MS,
    onStall: () => log.warn({ stallMs: START_STALL_MS }, "an agent start made no progress; it gives its start slot to the next (it goes on within its step timeouts)"),
  });
}

/** A start slot; a conversation that waits more than a moment for one is told why, at once (not with the answer). */
export async function waitForStartSlot(slots: Slots, signal: AbortSignal, tell: (text: string) => void): Promise<SlotLease> {
  let timer: NodeJS.Timeout | undefined;
  const onWait = () => {
    timer = setTimeout(() => {
      const seconds = Math.round(START_STALL_MS / 1000);
      tell(
        `⏳ ${MAX_CONCURRENT_HOST_STARTS} other agents are starting at once, the most Baton starts together; this one starts as soon as one of them is up (a start that hangs gives way within ${seconds} s).`,
      );
    }, SLOT_WAIT_NOTICE_MS);
  };
  try {
    return await slots.acquire(signal, onWait);
  } finally {
    clearTimeout(timer);
  }
}

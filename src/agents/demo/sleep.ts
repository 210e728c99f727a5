// A pause that a turn's cancel cuts short. Node's promise timer takes its abort listener off the
// signal when it fires. A listener added by hand and left there made a long `demo:stream` turn
// slower with every chunk: the turn's signal gained a listener per pause, and each add walks them all.
import { setTimeout as delay } from "node:timers/promises";

export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  // The timer rejects only when the signal aborts, and a cancelled pause simply ends.
  await delay(ms, undefined, { signal }).catch(() => undefined);
}

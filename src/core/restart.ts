// Across a restart. A shutdown ends the running turns: no new turn starts (new prompts are kept for
// the next start); running turns get a grace period to finish, streaming as usual; whatever still
// runs then is cancelled, its pending approvals are marked expired, and its chats are told. The
// next start runs the prompts that were queued, in their order.
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { Supervisor } from "../agents/supervisor.js";
import type { PlatformLogger } from "../platforms/contract.js";
import type { ThreadRecord, ThreadRegistry } from "../threads/registry.js";
import { expired, type ApprovalBroker } from "./approvals.js";

/** After the grace period, how long cancelled turns get to end cleanly ("⏹ Stopped.") before the processes go. */
const CANCEL_SETTLE_MS = 3_000;
/** How long shutdown waits for its last notices to reach the chats. */
const SHUTDOWN_NOTICE_MS = 3_000;
const EXPIRED_APPROVAL = expired("Baton restarted before this was answered");

export interface RestartDeps {
  registry: ThreadRegistry;
  supervisor: Supervisor;
  approvals: ApprovalBroker;
  /** Queues a prompt for the thread's agent (turns.ts). */
  submit(threadId: string, prompt: ContentBlock[], id?: string): number;
  log: PlatformLogger;
  /** A notice on every route of the thread; resolves per route once delivered (or given up). */
  notify(thread: ThreadRecord, text: string): Array<Promise<void>>;
}

/** Pauses the supervisor and lets running turns finish within `graceMs`, cancelling the rest. */
export async function drainTurns(deps: RestartDeps, graceMs: number): Promise<void> {
  const { registry, supervisor } = deps;
  const settled = supervisor.pause();
  const running = () => registry.openThreads().filter((t) => supervisor.state(t.id).host === "running");
  if (running().length > 0) deps.log.info({ turns: running().length, graceMs }, "draining: running turns may finish");
  const timedOut = await Promise.race([settled.then(() => false), delay(graceMs).then(() => true)]);
  const cut = timedOut ? running() : [];
  for (const t of cut) {
    deps.approvals.endThread(t.id, EXPIRED_APPROVAL);
    await supervisor.cancel(t.id);
  }
  if (cut.length === 0) return;
  await Promise.race([settled, delay(CANCEL_SETTLE_MS)]);
  const seconds = Math.round(graceMs / 1000);
  const notices = cut.flatMap((t) => deps.notify(t, `⏹ Baton is restarting; the running turn did not finish within ${seconds} s and was cancelled. Send it again once Baton is back.`));
  await Promise.race([Promise.all(notices), delay(SHUTDOWN_NOTICE_MS)]);
}

/** After a start: prompts that were queued when Baton last stopped run now, in their order. */
export function resumeQueued(deps: RestartDeps): number {
  let resumed = 0;
  for (const t of deps.registry.openThreads()) {
    if (t.queued.length === 0) continue;
    const n = t.queued.length;
    deps.notify(t, `▶️ Baton is back: running ${n === 1 ? "the message" : `the ${n} messages`} queued before it restarted.`);
    for (const q of t.queued) deps.submit(t.id, q.prompt as ContentBlock[], q.id);
    resumed += n;
  }
  return resumed;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

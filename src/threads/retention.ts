// What a restart keeps of the event log: events are tallied as they replay, and the plan says which
// to keep once the registry knows the state they built (open threads, schedules not removed).
import type { ThreadEvent } from "./events.js";
import { AUDIT_RETENTION_MS, CLOSED_RETENTION_MS, MAX_CLOSED_KEPT, type RegistryOptions, type ThreadRecord } from "./records.js";

export interface RetentionPlan {
  keep: (e: ThreadEvent) => boolean;
  dropped: number;
  /** Audit events older than audit.keep among them: any is reason enough to compact. */
  expiredAudit: number;
  droppedThreads: string[];
}

export class RetentionTally {
  /** Events seen per thread: what compaction can drop (audit events are timed by the registry). */
  private readonly eventCounts = new Map<string, number>();
  /** Events per schedule made in chat. */
  private readonly scheduleEvents = new Map<string, number>();

  count(event: ThreadEvent): void {
    if (event.type === "workspace_registered") return; // always kept
    if (event.type === "schedule_added" || event.type === "schedule_removed") {
      const id = event.type === "schedule_added" ? event.schedule.id : event.scheduleId;
      this.scheduleEvents.set(id, (this.scheduleEvents.get(id) ?? 0) + 1);
      return;
    }
    if (event.type !== "audit") this.eventCounts.set(event.thread, (this.eventCounts.get(event.thread) ?? 0) + 1);
  }

  /**
   * What a compacted log keeps: every event of open threads and of recently closed ones (all of a
   * thread's events, so replaying them gives the same record), recent audit events, registered
   * workspaces and the schedules made in chat that were not removed.
   */
  plan(now: number, threads: ThreadRecord[], auditTimes: readonly number[], scheduleKept: (id: string) => boolean, options: RegistryOptions): RetentionPlan {
    const closedCutoff = now - (options.closedRetentionMs ?? CLOSED_RETENTION_MS);
    const auditCutoff = now - (options.auditRetentionMs ?? AUDIT_RETENTION_MS);
    const recentClosed = threads
      .filter((t) => !t.open && Date.parse(t.closedAt ?? t.lastEventAt) >= closedCutoff)
      .sort((a, b) => (b.closedAt ?? "").localeCompare(a.closedAt ?? ""))
      .slice(0, options.maxClosedKept ?? MAX_CLOSED_KEPT);
    const kept = new Set([...threads.filter((t) => t.open), ...recentClosed].map((t) => t.id));
    const expiredAudit = auditTimes.filter((at) => !(at >= auditCutoff)).length;
    let dropped = expiredAudit;
    for (const [thread, n] of this.eventCounts) if (!kept.has(thread)) dropped += n;
    // A schedule still there keeps the event that made it; a removed one leaves nothing.
    for (const [id, n] of this.scheduleEvents) if (!scheduleKept(id)) dropped += n;
    return {
      keep: (e) =>
        e.type === "workspace_registered"
          ? true
          : e.type === "schedule_added"
            ? scheduleKept(e.schedule.id)
            : e.type === "schedule_removed"
              ? false
              : e.type === "audit"
                ? Date.parse(e.at) >= auditCutoff
                : kept.has(e.thread),
      dropped,
      expiredAudit,
      droppedThreads: threads.filter((t) => !kept.has(t.id)).map((t) => t.id),
    };
  }
}

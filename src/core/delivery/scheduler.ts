// When each route's next call to a platform goes. Per route: in order (a send never overtakes an
// earlier send), not before the job's own time, within its pace key's limits. Platform-wide: when
// the platform's rate or a 429 hold makes calls wait, the routes wait in one queue, in the order
// they became ready, under one timer; every call starts from that queue, one per event-loop task. With a timer
// per route, fifty streaming chats woke together whenever the rate freed calls and thirty renders
// and requests ran back to back in one task while a new message waited; here a new message waits
// for at most one of them.
import type { Pacer } from "./pacer.js";

export interface ScheduledJob {
  kind: "send" | "edit";
  /** Not before this time (ms since the epoch): an edit gap, a retry's backoff. */
  notBefore: number;
}

interface RouteLine<J extends ScheduledJob> {
  route: string;
  jobs: J[];
  /** A call of this route is on its way (one at a time per route). */
  busy: boolean;
  /** In the queue for the platform's next free moment. */
  queued: boolean;
  timer?: NodeJS.Timeout;
}

/** Runs a job's call; resolves once it has ended, true to put the job back where it was (a retry). */
export type RunJob<J> = (job: J) => Promise<boolean>;

export class RouteScheduler<J extends ScheduledJob> {
  private readonly lines = new Map<string, RouteLine<J>>();
  /** Routes whose next call waits only for the platform, in the order they started waiting. */
  private readonly queue = new Set<RouteLine<J>>();
  private platformTimer?: NodeJS.Timeout;
  private platformImmediate?: NodeJS.Immediate;
  private ready = false;
  private preparing = false;

  constructor(
    private readonly pacer: Pacer,
    private readonly runJob: RunJob<J>,
    /** What calls need before the first can start (adapters render with the markdown parser, loaded after start-up). */
    private readonly prepare: () => Promise<unknown>,
    /** A failure the calls cannot report themselves (a job that threw, a renderer that did not load). */
    private readonly onError: (error: unknown) => void,
  ) {}

  push(route: string, job: J): void {
    let line = this.lines.get(route);
    if (!line) this.lines.set(route, (line = { route, jobs: [], busy: false, queued: false }));
    line.jobs.push(job);
    if (!this.ready) {
      this.prepareOnce();
      return;
    }
    this.pump(line);
  }

  /** A job of the route changed its time: decide again when the route's next call goes. */
  wake(route: string): void {
    const line = this.lines.get(route);
    if (line) this.pump(line);
  }

  private prepareOnce(): void {
    if (this.preparing) return;
    this.preparing = true;
    this.prepare().then(() => {
      this.ready = true;
      for (const line of this.lines.values()) this.pump(line);
    }, this.onError);
  }

  /** Decides what the route does next: start a call, wait for its own time, or queue for the platform. */
  private pump(line: RouteLine<J>, granted = false): void {
    if (!this.ready || line.busy || (line.queued && !granted)) return;
    clearTimeout(line.timer);
    line.timer = undefined;
    if (line.jobs.length === 0) {
      this.lines.delete(line.route);
      return;
    }
    const now = Date.now();
    const index = nextRunnable(line.jobs, now);
    // Nothing runnable: the earliest job still to come is due later (a later send with no wait of
    // its own is behind an earlier send that waits).
    const ownWait = index === -1 ? earliestLater(line.jobs, now) - now : this.pacer.keyDelayMs(line.route, line.jobs[index].kind, now);
    if (ownWait > 0) {
      line.timer = setTimeout(() => this.pump(line), ownWait);
      return;
    }
    // Every call starts from the queue, in a task of its own (a route is granted even when nothing
    // waits: the timers or I/O that made it ready may have made fifty others ready too).
    if (!granted) {
      line.queued = true;
      this.queue.add(line);
      this.scheduleGrant();
      return;
    }
    const [job] = line.jobs.splice(index, 1);
    line.busy = true;
    const ended = (retry: boolean) => {
      if (retry) line.jobs.splice(index, 0, job);
      line.busy = false;
      this.pump(line);
    };
    this.runJob(job).then(ended, (error: unknown) => {
      this.onError(error);
      ended(false);
    });
  }

  private scheduleGrant(): void {
    if (this.platformTimer || this.platformImmediate || this.queue.size === 0) return;
    const wait = this.pacer.platformDelayMs();
    if (wait > 0) this.platformTimer = setTimeout(() => this.grant(), wait);
    // Nothing to wait for: the next call in the next event-loop task, after the I/O that is waiting.
    else this.platformImmediate = setImmediate(() => this.grant());
  }

  /** The platform is free: the first route in the queue goes (or waits again for its own reasons). */
  private grant(): void {
    this.platformTimer = undefined;
    this.platformImmediate = undefined;
    if (this.pacer.platformDelayMs() > 0) {
      this.scheduleGrant();
      return;
    }
    const [line] = this.queue;
    if (!line) return;
    this.queue.delete(line);
    line.queued = false;
    this.pump(line, true);
    this.scheduleGrant();
  }
}

/** The first job that may run now: due, and no send overtakes an earlier send. */
function nextRunnable(jobs: ScheduledJob[], now: number): number {
  let sendWaiting = false;
  for (let i = 0; i < jobs.length; i++) {
    const job = jobs[i];
    if (job.kind === "send") {
      if (sendWaiting) continue;
      if (job.notBefore <= now) return i;
      sendWaiting = true;
    } else if (job.notBefore <= now) return i;
  }
  return -1;
}

function earliestLater(jobs: ScheduledJob[], now: number): number {
  let earliest = Infinity;
  for (const job of jobs) if (job.notBefore > now && job.notBefore < earliest) earliest = job.notBefore;
  return earliest;
}

// Scheduled prompts: `schedules:` in the config and `/schedule add "<cron>" <prompt>` in chat. At
// each time of its cron pattern (croner, in the schedule's time zone) a prompt goes into the
// route's thread. A run is skipped while the previous one is still going, with one notice per
// streak of skipped runs; a schedule made in chat never runs once its maker may no longer use the
// bot. Chat schedules are bounded (schedule_limits: how often one may run, how many a chat and a
// person may have) and kept in the thread registry, so a restart brings them back; times missed
// while Baton was down are not made up.
import { randomBytes } from "node:crypto";
import { Cron } from "croner";
import type { LimitsApi, TurnTicket } from "../commands/context.js";
import type { ScheduleInfo } from "../commands/features.js";
import { cronProblem, isTimeZone, type ScheduleConfig } from "../config/features.js";
import { CommandError } from "../kernel/errors.js";
import type { PlatformCursors, PlatformLogger } from "../platforms/contract.js";
import type { StoredSchedule } from "../threads/chat-state.js";
import type { ThreadRecord, ThreadRegistry } from "../threads/registry.js";

/** A schedule as the chat lists it. */
export type ScheduleView = ScheduleInfo & { createdBy?: string };

/** Bounds on chat schedules: the least time between two runs (ms), and how many per chat and per person. */
interface ScheduleLimits {
  minIntervalMs: number;
  perRoute: number;
  perPerson: number;
}

/** Runs looked at to find a pattern's shortest gap: enough for any gap a pattern repeats within a year's runs. */
const RUNS_CHECKED = 60;
const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;

export interface SchedulerDeps {
  registry: ThreadRegistry;
  config: ScheduleConfig[];
  limits: ScheduleLimits;
  defaultTimeZone?: string;
  /** The route's platform is running (a schedule for a platform taken out of the config waits). */
  hasPlatform(route: string): boolean;
  /** The schedule's maker may still use the bot there (their groups looked up first, where a list names one). */
  isAllowed(userId: string, route: string): boolean | Promise<boolean>;
  /** A notice on one route. */
  notify(route: string, text: string): void;
  /** The route's open thread, created as a new message would create it. */
  threadFor(route: string): Promise<ThreadRecord>;
  submit(thread: ThreadRecord, text: string, ticket?: TurnTicket): void;
  /** A chat schedule's prompt counts toward its maker's limits per person; over one it does not run. */
  admit?: LimitsApi["admit"];
  drained(threadId: string): Promise<void>;
  log: PlatformLogger;
  /**
   * With store.url: when each schedule last ran, kept where the next leader reads it, so a run that
   * fell due while no instance led (a takeover) runs once when the next one starts.
   */
  lastRuns?: PlatformCursors;
}

/** A run missed by longer than this (Baton was down) is not made up for: it would surprise more than help. */
const CATCH_UP_MS = 10 * 60_000;

interface Job {
  view: ScheduleView;
  cron: Cron;
  /** The previous run: done once its thread had nothing more to do. */
  lastRun?: { done: boolean };
  /** Runs skipped in a row (the chat hears of the first only). */
  skipped: number;
  /** Runs its maker's limits held back in a row (the chat hears of the first only). */
  limited?: number;
}

const lastRunKey = (id: string) => `schedule:${id}:last-run`;

const ID_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";
const ID_CHARS = 5;

export class Scheduler {
  private readonly jobs = new Map<string, Job>();
  private running = false;

  constructor(private readonly deps: SchedulerDeps) {}

  /**
   * A reload: the config's schedules, the limits and the default time zone as the config now says.
   * A running scheduler reschedules every job at once; a job whose route and pattern stayed keeps
   * its last run (a run still going is not doubled by the reload).
   */
  reconfigure(next: Pick<SchedulerDeps, "config" | "limits" | "defaultTimeZone">): void {
    Object.assign(this.deps, next);
    if (!this.running) return;
    const before = new Map(this.jobs);
    this.stop();
    this.start();
    for (const [id, job] of this.jobs) {
      const old = before.get(id);
      if (old && old.view.route === job.view.route && old.view.cron === job.view.cron) Object.assign(job, { lastRun: old.lastRun, skipped: old.skipped });
    }
  }

  start(): void {
    this.running = true;
    this.deps.config.forEach((s, i) => {
      this.schedule({ id: `config-${i + 1}`, route: s.route, cron: s.cron, prompt: s.prompt, timeZone: s.time_zone, source: "config" });
    });
    for (const s of this.deps.registry.schedules()) this.schedule({ ...s, source: "chat" });
    void this.catchUp();
  }

  /** Runs once, now, each schedule whose run fell due since its last run (recorded in lastRuns). */
  private async catchUp(): Promise<void> {
    const lastRuns = this.deps.lastRuns;
    if (!lastRuns) return;
    for (const job of [...this.jobs.values()]) {
      const last = Number(await lastRuns.get(lastRunKey(job.view.id)).catch(() => undefined));
      if (!last) continue;
      const due = job.cron.nextRun(new Date(last));
      const late = due ? Date.now() - due.getTime() : -1;
      if (late < 0 || late > CATCH_UP_MS || this.jobs.get(job.view.id) !== job) continue;
      this.deps.log.info({ schedule: job.view.id, route: job.view.route, due: due?.toISOString() }, "a scheduled prompt fell due while no instance led; running it now");
      await this.fire(job);
    }
  }

  stop(): void {
    this.running = false;
    for (const job of this.jobs.values()) job.cron.stop();
    this.jobs.clear();
  }

  /** Schedules of a route (or of every route), soonest first. */
  list(route?: string): ScheduleView[] {
    return [...this.jobs.values()]
      .filter((j) => route === undefined || j.view.route === route)
      .map((j) => ({ ...j.view, timeZone: j.view.timeZone ?? this.deps.defaultTimeZone, next: j.cron.nextRun() ?? undefined }))
      .sort((a, b) => (a.next?.getTime() ?? Infinity) - (b.next?.getTime() ?? Infinity));
  }

  async add(route: string, cron: string, prompt: string, createdBy: string, timeZone?: string): Promise<ScheduleView> {
    const problem = cronProblem(cron);
    if (problem) throw new CommandError(`\`${cron}\` is not a cron pattern (${problem}). Example: \`/schedule add "0 9 * * 1-5" summarise yesterday's commits\` runs at 09:00 on weekdays.`);
    if (timeZone && !isTimeZone(timeZone)) throw new CommandError(`\`${timeZone}\` is not a time zone; use an IANA name such as Europe/Berlin or UTC.`);
    if (!prompt.trim()) throw new CommandError('Say what to send: `/schedule add "<cron>" <prompt>`.');
    this.checkLimits(route, cron, createdBy, timeZone);
    const stored: StoredSchedule = { id: this.newId(), route, cron, prompt: prompt.trim(), timeZone, createdBy, createdAt: new Date().toISOString() };
    await this.deps.registry.addSchedule(stored);
    const job = this.schedule({ ...stored, source: "chat" });
    return { ...job.view, timeZone: job.view.timeZone ?? this.deps.defaultTimeZone, next: job.cron.nextRun() ?? undefined };
  }

  /** Removes a chat schedule of this route; a config one is refused with where it comes from. */
  async remove(route: string, id: string): Promise<void> {
    const job = this.jobs.get(id);
    if (!job || job.view.route !== route) throw new CommandError(`No schedule \`${id}\` here. \`/schedule list\` shows this chat's schedules.`);
    if (job.view.source === "config") throw new CommandError(`Schedule \`${id}\` comes from the config (schedules:); remove it there.`);
    await this.deps.registry.removeSchedule(id);
    job.cron.stop();
    this.jobs.delete(id);
  }

  /** Refuses a chat schedule that would run too often, or one more than a chat or a person may have. */
  private checkLimits(route: string, cron: string, createdBy: string, timeZone?: string): void {
    const { minIntervalMs, perRoute, perPerson } = this.deps.limits;
    const gap = shortestGapMs(cron, timeZone ?? this.deps.defaultTimeZone);
    if (gap !== undefined && gap < minIntervalMs) {
      throw new CommandError(
        `\`${cron}\` would run every ${describeMs(gap)}; a schedule may run at most once every ${describeMs(minIntervalMs)} (schedule_limits.min_interval in the config). ` +
          "Cron fields: minute hour day month weekday; a sixth field in front is seconds.",
      );
    }
    const chat = [...this.jobs.values()].filter((j) => j.view.source === "chat");
    if (chat.filter((j) => j.view.route === route).length >= perRoute) {
      throw new CommandError(`This chat has ${perRoute} schedules, the most one chat may have (schedule_limits.per_route). Remove one first: \`/schedule list\`, \`/schedule rm <id>\`.`);
    }
    if (chat.filter((j) => j.view.createdBy === createdBy).length >= perPerson) {
      throw new CommandError(`You have ${perPerson} schedules, the most one person may have (schedule_limits.per_person). Remove one first with \`/schedule rm <id>\` in its chat.`);
    }
  }

  private schedule(view: ScheduleView): Job {
    const timezone = view.timeZone ?? this.deps.defaultTimeZone;
    const job: Job = {
      skipped: 0,
      view,
      cron: new Cron(view.cron, { timezone, unref: true, catch: (error) => this.deps.log.error({ err: error, schedule: view.id }, "a scheduled prompt failed") }, () => this.fire(job)),
    };
    this.jobs.get(view.id)?.cron.stop();
    this.jobs.set(view.id, job);
    return job;
  }

  private async fire(job: Job): Promise<void> {
    const { id, route, prompt, createdBy } = job.view;
    if (!this.deps.hasPlatform(route)) {
      this.deps.log.warn({ schedule: id, route }, "scheduled prompt skipped: no platform serves this route");
      return;
    }
    if (createdBy && !(await this.deps.isAllowed(createdBy, route))) {
      this.deps.log.info({ schedule: id, route, user: createdBy }, "scheduled prompt not sent: the user who made it is no longer allowed");
      return;
    }
    if (job.lastRun && !job.lastRun.done) {
      // One notice per streak: a pattern that fires while a long run goes on must not flood the chat.
      if (job.skipped++ === 0)
        this.deps.notify(route, `⏭ Skipping schedule \`${id}\` (\`${job.view.cron}\`) while its previous run is still going; it runs again at the first time after that run ends.`);
      return;
    }
    if (job.skipped > 0) this.deps.log.info({ schedule: id, route, skipped: job.skipped }, "scheduled prompt runs again after skipped runs");
    job.skipped = 0;
    const thread = await this.deps.threadFor(route);
    const run = { done: false };
    job.lastRun = run;
    this.deps.lastRuns?.set(lastRunKey(id), String(Date.now()));
    // The notice goes when the prompt can start: after what the thread is still doing (an answer and
    // its usage line), not in the middle of it.
    await this.deps.drained(thread.id);
    const admitted = createdBy && this.jobs.has(id) ? await this.deps.admit?.({ id: createdBy }, route, "maker") : undefined;
    // Removed while its run waited (the thread's turn can take long): the chat was told it is gone.
    if (!this.jobs.has(id)) {
      run.done = true;
      if (admitted?.ok) admitted.ticket?.end(false);
      return;
    }
    if (admitted && !admitted.ok) {
      run.done = true;
      if ((job.limited = (job.limited ?? 0) + 1) === 1) this.deps.notify(route, `⏭ Schedule \`${id}\` did not run: ${admitted.text} It runs again once the limit allows.`);
      return;
    }
    job.limited = 0;
    this.deps.notify(route, `⏰ Schedule \`${id}\`: ${prompt}`);
    this.deps.submit(thread, prompt, admitted?.ticket);
    void this.deps.drained(thread.id).then(() => (run.done = true));
  }

  private newId(): string {
    for (;;) {
      const bytes = randomBytes(ID_CHARS);
      const id = Array.from(bytes, (b) => ID_ALPHABET[b % ID_ALPHABET.length]).join("");
      if (!this.jobs.has(id)) return id;
    }
  }
}

/** The shortest time between two of the pattern's next runs, or undefined when it runs at most once more. */
function shortestGapMs(pattern: string, timezone?: string): number | undefined {
  const cron = new Cron(pattern, { timezone, paused: true });
  try {
    const runs = cron.nextRuns(RUNS_CHECKED).map((d) => d.getTime());
    let shortest: number | undefined;
    for (let i = 1; i < runs.length; i++) shortest = Math.min(shortest ?? Infinity, runs[i] - runs[i - 1]);
    return shortest;
  } finally {
    cron.stop();
  }
}

function describeMs(ms: number): string {
  if (ms % MINUTE_MS === 0) return `${ms / MINUTE_MS} min`;
  return `${Math.round(ms / SECOND_MS)} s`;
}

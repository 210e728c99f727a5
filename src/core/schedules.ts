// Scheduled prompts: `schedules:` in the config and `/schedule add "<cron>" <prompt>` in chat. At
// each time of its cron pattern (croner, in the schedule's time zone) a prompt goes into the
// route's thread. A run is skipped, with a notice, while the previous one is still going; a
// schedule made in chat never runs once its maker may no longer use the bot. Chat schedules are
// kept in the thread registry, so a restart brings them back; times missed while Baton was down
// are not made up.
import { randomBytes } from "node:crypto";
import { Cron } from "croner";
import type { ScheduleInfo } from "../commands/features.js";
import { cronProblem, isTimeZone, type ScheduleConfig } from "../config/features.js";
import { CommandError } from "../kernel/errors.js";
import type { PlatformLogger } from "../platforms/contract.js";
import type { StoredSchedule } from "../threads/chat-state.js";
import type { ThreadRecord, ThreadRegistry } from "../threads/registry.js";

/** A schedule as the chat lists it. */
export type ScheduleView = ScheduleInfo & { createdBy?: string };

export interface SchedulerDeps {
  registry: ThreadRegistry;
  config: ScheduleConfig[];
  defaultTimeZone?: string;
  /** The route's platform is running (a schedule for a platform taken out of the config waits). */
  hasPlatform(route: string): boolean;
  isAllowed(userId: string, route: string): boolean;
  /** A notice on one route. */
  notify(route: string, text: string): void;
  /** The route's open thread, created as a new message would create it. */
  threadFor(route: string): Promise<ThreadRecord>;
  submit(thread: ThreadRecord, text: string): void;
  drained(threadId: string): Promise<void>;
  log: PlatformLogger;
}

interface Job {
  view: ScheduleView;
  cron: Cron;
  /** The previous run: done once its thread had nothing more to do. */
  lastRun?: { done: boolean };
}

const ID_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";
const ID_CHARS = 5;

export class Scheduler {
  private readonly jobs = new Map<string, Job>();

  constructor(private readonly deps: SchedulerDeps) {}

  start(): void {
    this.deps.config.forEach((s, i) => this.schedule({ id: `config-${i + 1}`, route: s.route, cron: s.cron, prompt: s.prompt, timeZone: s.time_zone, source: "config" }));
    for (const s of this.deps.registry.schedules()) this.schedule({ ...s, source: "chat" });
  }

  stop(): void {
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

  private schedule(view: ScheduleView): Job {
    const timezone = view.timeZone ?? this.deps.defaultTimeZone;
    const job: Job = {
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
    if (createdBy && !this.deps.isAllowed(createdBy, route)) {
      this.deps.log.info({ schedule: id, route, user: createdBy }, "scheduled prompt not sent: the user who made it is no longer allowed");
      return;
    }
    if (job.lastRun && !job.lastRun.done) {
      this.deps.notify(route, `⏭ Skipped schedule \`${id}\` (\`${job.view.cron}\`): its previous run is still going.`);
      return;
    }
    const thread = await this.deps.threadFor(route);
    const run = { done: false };
    job.lastRun = run;
    this.deps.notify(route, `⏰ Schedule \`${id}\`: ${prompt}`);
    this.deps.submit(thread, prompt);
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

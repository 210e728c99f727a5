// Limits per person (limits.per_person): turns a clock hour, turns running at once, dollars and
// tokens a day. A prompt is admitted before it goes to the agent (over a limit it is not sent, and
// the person is told which limit and when it resets); the turn's ticket then frees its running place
// as it ends and charges what its agent reported. Everyone's use is counted, admins' too (for
// /usage); admins are only exempt from refusals, unless limits.admins says otherwise.
import type { BatonConfig } from "../../config/schema.js";
import type { LimitsApi, TurnTicket } from "../../commands/context.js";
import { userMessageOf } from "../../kernel/errors.js";
import type { PlatformLogger, PlatformUser } from "../../platforms/contract.js";
import { personOf } from "../conversation/people.js";
import { overLimitText, storeFailedText, subagentsRefusedText, usageReport, type PersonUse } from "./report.js";
import { Roster } from "./roster.js";
import { SessionCosts, turnSpend, type Spent } from "./spend.js";
import type { PromptTokens } from "../../agents/usage.js";
import { Counters, Places, type LimitStore } from "./store.js";
import { dayWindow, hourWindow, machineTimeZone } from "./windows.js";

/**
 * A counted dollar is this many units (the stores keep whole numbers): a millionth of a dollar, the
 * resolution of token prices, so a turn of a few hundredths of a cent counts exactly. The stores
 * count exactly up to 2^53 units, some $9 billion a person a day.
 */
const USD_UNITS = 1_000_000;
const HOUR_SEC = 3_600;
/** A key outlives its window: a day may have 25 hours (DST), and the key starts within it. */
const DAY_KEY_SEC = 26 * HOUR_SEC;
/** How long a running turn's place lasts unless renewed: an instance that died frees its places within this. */
const PLACE_LEASE_SEC = 120;
const RENEW_EVERY_MS = 40_000;

type PerPerson = BatonConfig["limits"]["per_person"];
type Admission = { ok: true; ticket: TurnTicket } | { ok: false; text: string };

interface RoundUsage {
  tokens?: PromptTokens;
  cost?: { amount: number; currency: string };
}

export interface PersonLimitsDeps {
  config(): Pick<BatonConfig, "limits" | "access" | "time_zone">;
  isAdmin(userId: string, route: string): boolean;
  store: LimitStore;
  /** Milliseconds since the epoch (tests move it). */
  now?: () => number;
  log: PlatformLogger;
}

export class PersonLimits implements LimitsApi {
  private readonly turns: Counters;
  private readonly usd: Counters;
  private readonly tokens: Counters;
  private readonly running: Places;
  private readonly roster: Roster;
  private readonly now: () => number;
  /** Places this instance holds, renewed together; each key's operations run in order. */
  private readonly held = new Map<string, Promise<void>>();
  private renewTimer?: NodeJS.Timeout;
  private readonly subagentCosts = new SessionCosts();

  constructor(private readonly deps: PersonLimitsDeps) {
    this.turns = new Counters(deps.store, "turns", HOUR_SEC + 60);
    this.usd = new Counters(deps.store, "usd", DAY_KEY_SEC);
    this.tokens = new Counters(deps.store, "tokens", DAY_KEY_SEC);
    this.running = new Places(deps.store, "running", PLACE_LEASE_SEC);
    this.roster = new Roster(deps.store.codes, DAY_KEY_SEC);
    this.now = deps.now ?? Date.now;
  }

  /** The person key of a user (access.people joins one person's accounts). */
  personOf(user: PlatformUser): string {
    return personOf(this.deps.config().access, user.id);
  }

  /** `about`: the refusal speaks of the person (a schedule's maker) rather than to them. */
  async admit(user: PlatformUser, route: string, about?: "maker"): Promise<Admission> {
    const person = this.personOf(user);
    const { limits } = this.deps.config();
    const per = limits.per_person;
    const limited = (limits.admins || !this.deps.isAdmin(user.id, route)) && Object.values(per).some((v) => v !== undefined);
    const now = this.now();
    const hour = hourWindow(now);
    if (!limited) {
      // Counted for /usage only: the prompt does not wait for the store, and a failure there costs it nothing.
      this.turns.add(`${person}:${hour.key}`, 1).catch((error: unknown) => this.warn(error, "could not count a turn"));
      this.noteInRoster(person, now);
      return { ok: true, ticket: this.ticket(person, hour.key) };
    }
    // The hour's count this admission took, given back should the store fail halfway.
    const taken: { hourKey?: string } = {};
    try {
      return await this.admitLimited(person, per, now, taken, about ? person : undefined);
    } catch (error) {
      if (taken.hourKey) this.turns.take(taken.hourKey, 1).catch(() => undefined);
      this.warn(error, "could not check a person's limits; the prompt was not sent");
      return { ok: false, text: storeFailedText(userMessageOf(error)) };
    }
  }

  private async admitLimited(person: string, per: PerPerson, now: number, taken: { hourKey?: string }, who: string | undefined): Promise<Admission> {
    const zone = this.timeZone();
    if (per.usd_per_day !== undefined || per.tokens_per_day !== undefined) {
      const day = dayWindow(now, zone);
      const use = await this.dayUse(person, day.key);
      if (per.usd_per_day !== undefined && use.usd >= per.usd_per_day) return { ok: false, text: overLimitText("usd_per_day", per.usd_per_day, use.usd, day.endsAt, now, zone, who) };
      if (per.tokens_per_day !== undefined && use.tokens >= per.tokens_per_day) return { ok: false, text: overLimitText("tokens_per_day", per.tokens_per_day, use.tokens, day.endsAt, now, zone, who) };
    }
    const hour = hourWindow(now);
    const hourKey = `${person}:${hour.key}`;
    const turns = await this.turns.add(hourKey, 1);
    taken.hourKey = hourKey;
    if (per.turns_per_hour !== undefined && turns > per.turns_per_hour) {
      await this.turns.take(hourKey, 1);
      taken.hourKey = undefined;
      // (Not the count: it may include racing prompts about to give their point back too.)
      return { ok: false, text: overLimitText("turns_per_hour", per.turns_per_hour, per.turns_per_hour, hour.endsAt, now, zone, who) };
    }
    let place: string | undefined;
    if (per.concurrent_turns !== undefined) {
      place = await this.takePlace(person, per.concurrent_turns);
      if (!place) {
        await this.turns.take(hourKey, 1);
        taken.hourKey = undefined;
        return { ok: false, text: overLimitText("concurrent_turns", per.concurrent_turns, per.concurrent_turns, undefined, now, zone, who) };
      }
    }
    this.noteInRoster(person, now);
    return { ok: true, ticket: this.ticket(person, hour.key, place) };
  }

  /** Adds what a turn (or a subagent's round) spent to the person's day. Never throws. */
  async charge(person: string, spent: Spent): Promise<void> {
    const now = this.now();
    const day = dayWindow(now, this.timeZone()).key;
    const key = `${person}:${day}`;
    try {
      if (spent.tokens !== undefined && spent.tokens > 0) await this.tokens.add(key, Math.round(spent.tokens));
      const units = Math.round((spent.usd ?? 0) * USD_UNITS);
      if (units > 0) await this.usd.add(key, units);
      this.noteInRoster(person, now);
    } catch (error) {
      this.warn(error, "could not count what a turn spent");
    }
  }

  /**
   * Before a turn starts `rounds` subagent rounds: why not (the person whose prompt started it has
   * reached a limit, or the store did not answer), or undefined. Nothing is counted here: each
   * round counts as it ends (roundSpent).
   */
  async subagentsRefusal(requester: PlatformUser, route: string, rounds: number): Promise<string | undefined> {
    const { limits } = this.deps.config();
    const per = limits.per_person;
    if (!limits.admins && this.deps.isAdmin(requester.id, route)) return undefined;
    const person = this.personOf(requester);
    const now = this.now();
    const zone = this.timeZone();
    try {
      const day = dayWindow(now, zone);
      const hour = hourWindow(now);
      const [use, turns] = await Promise.all([this.dayUse(person, day.key), this.turns.get(`${person}:${hour.key}`)]);
      if (per.usd_per_day !== undefined && use.usd >= per.usd_per_day) return subagentsRefusedText(person, "usd_per_day", per.usd_per_day, day.endsAt, now, zone);
      if (per.tokens_per_day !== undefined && use.tokens >= per.tokens_per_day) return subagentsRefusedText(person, "tokens_per_day", per.tokens_per_day, day.endsAt, now, zone);
      if (per.turns_per_hour !== undefined && turns + rounds > per.turns_per_hour) return subagentsRefusedText(person, "turns_per_hour", per.turns_per_hour, hour.endsAt, now, zone);
      return undefined;
    } catch (error) {
      this.warn(error, "could not check a person's limits before starting subagents; none started");
      return `No subagents were started: ${storeFailedText(userMessageOf(error))}`;
    }
  }

  /**
   * A subagent's round: a turn of the person whose prompt started the thread's turn, with what it
   * spent. Counted, never refused: the turn that started it was admitted, and a plan cut halfway
   * would waste what it spent; the person's next prompt is held to the limits.
   */
  roundSpent(requester: PlatformUser, session: string | undefined, usage: RoundUsage): Spent {
    const person = this.personOf(requester);
    const now = this.now();
    this.turns.add(`${person}:${hourWindow(now).key}`, 1).catch((error: unknown) => this.warn(error, "could not count a turn"));
    const { tokens, cost } = usage;
    const reported = { totalTokens: tokens?.totalTokens, inputTokens: tokens?.inputTokens, outputTokens: tokens?.outputTokens, cost };
    const spent = session ? this.subagentCosts.spend(session, reported) : turnSpend(reported, undefined);
    void this.charge(person, spent);
    return spent;
  }

  async report(user: PlatformUser, route: string): Promise<string> {
    const { limits } = this.deps.config();
    const admin = this.deps.isAdmin(user.id, route);
    const me = this.personOf(user);
    const people = admin ? await this.everyone(me) : [me];
    const uses = await Promise.all(people.map((person) => this.useOf(person)));
    return usageReport({ me, admin, exempt: admin && !limits.admins, per: limits.per_person, uses, now: this.now(), timeZone: this.timeZone() });
  }

  /** Stops renewing places (the daemon stops; a new one frees them within a lease). */
  stop(): void {
    clearInterval(this.renewTimer);
    this.renewTimer = undefined;
  }

  private ticket(person: string, hourKey: string, place?: string): TurnTicket {
    let ended = false;
    return {
      person,
      end: (ran) => {
        if (ended) return;
        ended = true;
        if (place) this.freePlace(place);
        // A prompt that never became a turn (its thread closed first) is given back.
        if (!ran) this.turns.take(`${person}:${hourKey}`, 1).catch((error: unknown) => this.warn(error, "could not give a turn back"));
      },
      charge: (spent) => void this.charge(person, spent),
    };
  }

  private async takePlace(person: string, count: number): Promise<string | undefined> {
    for (let i = 0; i < count; i++) {
      const key = `${person}:${i}`;
      if (this.held.has(key)) continue;
      if (await this.running.take(key)) {
        this.held.set(key, Promise.resolve());
        this.renewTimer ??= setInterval(() => this.renewAll(), RENEW_EVERY_MS).unref();
        return key;
      }
    }
    return undefined;
  }

  private freePlace(key: string): void {
    const pending = this.held.get(key) ?? Promise.resolve();
    this.held.delete(key);
    if (this.held.size === 0) this.stop();
    pending.then(() => this.running.free(key)).catch((error: unknown) => this.warn(error, "could not free a running turn's place; its lease frees it"));
  }

  private renewAll(): void {
    for (const [key, pending] of this.held) {
      const next = pending.then(() => (this.held.has(key) ? this.running.renew(key) : undefined)).catch((error: unknown) => this.warn(error, "could not renew a running turn's place"));
      this.held.set(key, next);
    }
  }

  private async dayUse(person: string, dayKey: string): Promise<{ usd: number; tokens: number }> {
    const [usd, tokens] = await Promise.all([this.usd.get(`${person}:${dayKey}`), this.tokens.get(`${person}:${dayKey}`)]);
    return { usd: usd / USD_UNITS, tokens };
  }

  private async useOf(person: string): Promise<PersonUse> {
    const now = this.now();
    const concurrent = this.deps.config().limits.per_person.concurrent_turns;
    const places = concurrent ? await Promise.all(Array.from({ length: concurrent }, (_, i) => this.running.taken(`${person}:${i}`))) : [];
    const [turns, day] = await Promise.all([this.turns.get(`${person}:${hourWindow(now).key}`), this.dayUse(person, dayWindow(now, this.timeZone()).key)]);
    return { person, turns, running: concurrent ? places.filter(Boolean).length : undefined, ...day };
  }

  /** People with use today: this instance's and the others' (the shared roster), the asker first. */
  private async everyone(me: string): Promise<string[]> {
    const listed = await this.roster.list(dayWindow(this.now(), this.timeZone()).key);
    return [me, ...[...listed].filter((p) => p !== me).sort()];
  }

  private noteInRoster(person: string, now: number): void {
    this.roster.note(person, dayWindow(now, this.timeZone()).key).catch((error: unknown) => this.warn(error, "could not note a person in today's list"));
  }

  private timeZone(): string {
    return this.deps.config().time_zone ?? machineTimeZone();
  }

  private warn(error: unknown, what: string): void {
    this.deps.log.warn({ err: userMessageOf(error) }, what);
  }
}

// Who used Baton today, for an admin's /usage: the counters' stores cannot list their keys, so each
// instance writes the people it saw today into one shared entry (a list per day, expiring after
// it). Instances write their whole list each time they see someone new, so a name lost to two
// instances writing at once comes back with that instance's next write; this instance's own
// people are always listed.
import type { Keyv } from "keyv";

const MAX_PEOPLE = 10_000;

export class Roster {
  private day = "";
  private readonly seen = new Set<string>();

  constructor(
    private readonly store: Keyv,
    private readonly ttlSec: number,
  ) {}

  async note(person: string, dayKey: string): Promise<void> {
    if (dayKey !== this.day) {
      this.day = dayKey;
      this.seen.clear();
    }
    if (this.seen.has(person) || this.seen.size >= MAX_PEOPLE) return;
    this.seen.add(person);
    const shared = await this.shared(dayKey);
    for (const p of this.seen) shared.add(p);
    await this.store.set(keyOf(dayKey), [...shared].slice(0, MAX_PEOPLE), this.ttlSec * 1000);
  }

  async list(dayKey: string): Promise<Set<string>> {
    const people = await this.shared(dayKey);
    if (dayKey === this.day) for (const p of this.seen) people.add(p);
    return people;
  }

  private async shared(dayKey: string): Promise<Set<string>> {
    const value: unknown = await this.store.get(keyOf(dayKey));
    return new Set(Array.isArray(value) ? value.filter((p): p is string => typeof p === "string") : []);
  }
}

function keyOf(dayKey: string): string {
  return `limits-roster:${dayKey}`;
}

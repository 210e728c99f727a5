// Whether someone is in one of the platforms' own groups (a Slack user group, a Discord role, a
// Matrix power level, a Telegram group's admins), for access lists that name one. The adapter
// answers one question at a time (memberOf); the core decides which groups to ask about, keeps the
// answers for access.group_ttl in a bounded cache, and refuses when a lookup failed (fail closed):
// the reason goes to the log, the lookup is not asked again for a while, and nothing is retried.
import { isGroupPrincipal } from "../../config/principals.js";
import { BatonError } from "../../kernel/errors.js";
import type { PlatformAdapter, PlatformLogger, PlatformUser } from "../../platforms/contract.js";

/** Answers kept at most; the least recently used go first. */
const MAX_ANSWERS = 10_000;
/** A lookup that takes longer counts as failed: the message waits for it in its route's line. */
const LOOKUP_TIMEOUT_MS = 10_000;
/** A failed lookup is not asked again for this long (or the TTL, if shorter): a burst of messages must not become a burst of calls. */
const FAILURE_HOLD_MS = 30_000;
/**
 * An answer older than this part of the TTL is asked again when an event comes: the checks after
 * the lookup (the access step, a command's role) then still find it fresh.
 */
const REFRESH_AT = 0.8;

interface Answer {
  member: boolean;
  failed: boolean;
  at: number;
}

export interface GroupDeps {
  /** The adapter serving a route (it answers for its own platform's groups). */
  adapterOf(route: string): Pick<PlatformAdapter, "memberOf" | "groupScope"> | undefined;
  ttlMs(): number;
  log: PlatformLogger;
}

export class GroupMembership {
  private readonly answers = new Map<string, Answer>();
  private readonly asking = new Map<string, Promise<void>>();

  constructor(private readonly deps: GroupDeps) {}

  /** Looks up, for the sender of an event on `route`, each group entry of their platform among `entries`, unless a fresh answer is kept. */
  async refresh(entries: readonly string[], user: PlatformUser, route: string): Promise<void> {
    const kind = `${user.id.slice(0, user.id.indexOf(":"))}:`;
    const groups = new Set(entries.filter((entry) => entry.startsWith(kind) && isGroupPrincipal(entry)));
    await Promise.all([...groups].map((principal) => this.ask(principal, user, route)));
  }

  /** True only when a lookup said so within the TTL; an unknown, old or failed answer is no. */
  has(principal: string, userId: string, route: string): boolean {
    const answer = this.answers.get(this.key(principal, userId, route));
    return answer?.member === true && Date.now() - answer.at < this.deps.ttlMs();
  }

  private ask(principal: string, user: PlatformUser, route: string): Promise<void> {
    const key = this.key(principal, user.id, route);
    const answer = this.answers.get(key);
    const ttl = this.deps.ttlMs();
    if (answer && Date.now() - answer.at < (answer.failed ? Math.min(FAILURE_HOLD_MS, ttl) : ttl * REFRESH_AT)) return Promise.resolve();
    // Two events at once ask the platform once.
    let pending = this.asking.get(key);
    if (!pending) {
      pending = this.lookUp(principal, user, route).then((result) => {
        this.asking.delete(key);
        this.remember(key, result);
      });
      this.asking.set(key, pending);
    }
    return pending;
  }

  private async lookUp(principal: string, user: PlatformUser, route: string): Promise<Omit<Answer, "at">> {
    const adapter = this.deps.adapterOf(route);
    const fields = { principal, user: user.id, route };
    if (!adapter?.memberOf) {
      this.deps.log.warn(fields, "refused: this platform cannot look up the group an access list names");
      return { member: false, failed: true };
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${LOOKUP_TIMEOUT_MS / 1000} s`)), LOOKUP_TIMEOUT_MS);
    });
    try {
      const member = await Promise.race([adapter.memberOf(principal, user, route), timeout]);
      this.deps.log.debug({ ...fields, member }, "looked up a group's member");
      return { member, failed: false };
    } catch (error) {
      this.deps.log.warn({ ...fields, reason: reasonOf(error) }, "refused: could not look up whether the user is in a group an access list names");
      return { member: false, failed: true };
    } finally {
      clearTimeout(timer);
    }
  }

  private remember(key: string, result: Omit<Answer, "at">): void {
    this.answers.delete(key);
    this.answers.set(key, { ...result, at: Date.now() });
    if (this.answers.size > MAX_ANSWERS) this.answers.delete(this.answers.keys().next().value as string);
  }

  private key(principal: string, userId: string, route: string): string {
    const scope = this.deps.adapterOf(route)?.groupScope?.(route) ?? route;
    return `${principal}\u0000${scope}\u0000${userId}`;
  }
}

/** The log's reason: what the platform said (a BatonError's message is its log detail; never a token). */
function reasonOf(error: unknown): string {
  if (error instanceof BatonError && error.message !== error.userMessage) return `${error.userMessage} (${error.message})`;
  return error instanceof Error ? error.message : String(error);
}
